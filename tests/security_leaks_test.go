package tests

import (
	"testing"
)

// Smaller leaks: what a stranger (or the partner) could learn about a user
// without being allowed to.

// TestSecurityFlagsTellNoStrangerWhetherAUserIsPremium: feature flags are
// answered for the token's user; without a token for nobody, whoever the
// query names; another user only for an administrator.
func TestSecurityFlagsTellNoStrangerWhetherAUserIsPremium(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		boss, payer, stranger := h.newUser("boss@x.io"), h.newUser("payer@x.io"), h.newUser("stranger@x.io")
		expect(t, h.flagWrite(boss, map[string]any{"action": "create", "key": "hd_photos", "name": "HD", "isEnabled": true,
			"enabledForPremium": true}), 200, "")
		expect(t, h.flagWrite(boss, map[string]any{"action": "create", "key": "beta", "name": "Beta", "isEnabled": true,
			"rolloutPercentage": 0, "enabledForUserIds": []string{payer.ID}}), 200, "")
		now := h.Clock.Now()
		expect(t, h.post(premiumPath(payer), payer.Token, map[string]any{"action": "create", "plan": "9.99",
			"startDate": now.UnixMilli(), "endDate": now.AddDate(0, 1, 0).UnixMilli()}), 200, "")
		on := checkReply("hd_photos", true, "feature is enabled", "HD", "")
		off := checkReply("hd_photos", false, "feature is for premium users", "HD", "")
		check := func(token, query string) response {
			return h.get(flagsPath+"?flag=hd_photos&platform=ios"+query, token)
		}
		list := func(token, query string) response {
			return h.get(flagsPath+"?action=list&platform=ios"+query, token)
		}
		forbidden := errBody("forbidden", "you may only evaluate feature flags for yourself")

		// the owner's own answer
		expect(t, check(payer.Token, ""), 200, on)
		expect(t, check(payer.Token, "&userId="+payer.ID), 200, on)
		expect(t, list(payer.Token, ""), 200, listReply(payer.ID, "ios", "beta", "hd_photos"))

		// a stranger without a token is answered as nobody: the same as for anyone
		expect(t, check("", "&userId="+payer.ID), 200, off)
		expect(t, check("", "&userId="+stranger.ID), 200, off)
		expect(t, list("", "&userId="+payer.ID), 200, listReply("", "ios"))

		// a signed-in stranger naming the owner: 403
		expect(t, check(stranger.Token, "&userId="+payer.ID), 403, forbidden)
		expect(t, list(stranger.Token, "&userId="+payer.ID), 403, forbidden)
		expect(t, list(stranger.Token, ""), 200, listReply(stranger.ID, "ios"))

		// a bad token is refused, not answered as nobody
		expect(t, check("not-a-token", "&userId="+payer.ID), 401, errBody("unauthorized", "missing, invalid or expired token"))

		// an administrator may ask for anyone
		expect(t, check(boss.Token, "&userId="+payer.ID), 200, on)
		expect(t, list(boss.Token, "&userId="+payer.ID), 200, listReply(payer.ID, "ios", "beta", "hd_photos"))
	}, asAdmin)
}
