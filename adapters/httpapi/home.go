package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"go.uber.org/fx"

	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/advice"
	"tandem/modules/events"
	"tandem/modules/messages"
	"tandem/modules/moods"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/premium"
	"tandem/modules/questions"
	"tandem/modules/relationship"
)

// homeHandler answers the app's home screen (and its widgets) in one call:
// each part is what that module's own read says, rendered by the same
// mapper as its REST answer.
type homeHandler struct {
	accounts      *accounts.Service
	partners      *partners.Service
	relationship  *relationship.Service
	questions     *questions.Service
	events        *events.Service
	notifications *notifications.Service
	messages      *messages.Service
	premium       *premium.Service
	advice        *advice.Service
	moods         *moods.Service
	prefetch      HomePrefetch
	clock         core.Clock
}

// HomePrefetch reads at once, into the request's read memo, the rows that
// several modules' reads of a home call would each fetch (the SQL stores'
// home read model): the call then runs at most six statements. Without
// one, each module reads for itself.
type HomePrefetch interface {
	Prefetch(ctx context.Context, userID string) error
}

// HomeParts are the services the home screen reads (one fx parameter
// object keeps the constructor readable).
type HomeParts struct {
	fx.In
	Accounts      *accounts.Service
	Partners      *partners.Service
	Relationship  *relationship.Service
	Questions     *questions.Service
	Events        *events.Service
	Notifications *notifications.Service
	Messages      *messages.Service
	Premium       *premium.Service
	Advice        *advice.Service
	Moods         *moods.Service
	Prefetch      HomePrefetch `optional:"true"`
	Clock         core.Clock
}

func NewHomeHandler(p HomeParts) *homeHandler {
	return &homeHandler{accounts: p.Accounts, partners: p.Partners, relationship: p.Relationship,
		questions: p.Questions, events: p.Events, notifications: p.Notifications, messages: p.Messages,
		premium: p.Premium, advice: p.Advice, moods: p.Moods, prefetch: p.Prefetch, clock: p.Clock}
}

func (h *homeHandler) Register(r fiber.Router) {
	r.Get("/api/users/user/:userId/home", requireSelf, h.get)
}

// homeReply is the home screen. Every part is null when it does not apply
// (no partner, no relationship, nothing upcoming).
type homeReply struct {
	Success             bool              `json:"success"`
	Partner             *homePartnerJSON  `json:"partner"`
	PairingState        string            `json:"pairingState"`
	Relationship        *durationJSON     `json:"relationship"`
	NextMilestone       *milestoneJSON    `json:"nextMilestone"`
	Question            *homeQuestionJSON `json:"question"`
	Streak              streakJSON        `json:"streak"`
	Moods               homeMoodsJSON     `json:"moods"`
	NextEvent           *eventJSON        `json:"nextEvent"`
	UnreadNotifications int               `json:"unreadNotifications"`
	LatestMessage       *homeMessageJSON  `json:"latestMessage"`
	Premium             homePremiumJSON   `json:"premium"`
	Advice              *adviceJSON       `json:"advice"`
}

// homeMoodsJSON is today's check-in of each partner, null until made.
type homeMoodsJSON struct {
	Mine    *moodJSON `json:"mine"`
	Partner *moodJSON `json:"partner"`
}

type homePartnerJSON struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
}

type homeQuestionJSON struct {
	ID                string `json:"id"`
	Text              string `json:"text"`
	Date              string `json:"date"`
	AnsweredByMe      bool   `json:"answeredByMe"`
	AnsweredByPartner bool   `json:"answeredByPartner"`
	// Locked: the partner's answer stays hidden until the caller answered.
	Locked bool `json:"locked"`
}

type homeMessageJSON struct {
	ID        string `json:"id"`
	Text      string `json:"text"` // at most homeMessageRunes characters
	Author    string `json:"author"`
	CreatedAt int64  `json:"createdAt"`
}

type homePremiumJSON struct {
	IsPremium bool   `json:"isPremium"`
	Source    string `json:"source"`
}

// homeMessageRunes is how much of the latest message a widget shows.
const homeMessageRunes = 140

// nextEventHorizon bounds how far ahead the next event is looked for.
const nextEventHorizon = 366

func (h *homeHandler) get(c *fiber.Ctx) error {
	// Read-only: each module's reads (the caller's partnership, the two
	// accounts, ...) are asked once for the whole answer.
	ctx, userID := core.WithReadMemo(c.UserContext()), c.Params("userId")
	out, err := h.read(ctx, c, userID)
	if err != nil {
		return err
	}
	body, err := json.Marshal(out)
	if err != nil {
		return err
	}
	// Weak: the same parts in the same state, not the same bytes on the
	// wire (compression may differ).
	sum := sha256.Sum256(body)
	etag := `W/"` + hex.EncodeToString(sum[:12]) + `"`
	c.Set(fiber.HeaderETag, etag)
	if etagMatches(c.Get(fiber.HeaderIfNoneMatch), etag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(append(body, '\n')) // as encodeJSON ends every answer
}

// read gathers the parts; an unpaired caller gets no couple's parts.
func (h *homeHandler) read(ctx context.Context, c *fiber.Ctx, userID string) (homeReply, error) {
	out := homeReply{Success: true}
	if h.prefetch != nil {
		if err := h.prefetch.Prefetch(ctx, userID); err != nil {
			return out, err
		}
	}
	state, partnerID, err := h.pairing(ctx, userID)
	if err != nil {
		return out, err
	}
	out.PairingState = state
	if partnerID != "" {
		if err := h.couple(ctx, c, userID, partnerID, &out); err != nil {
			return out, err
		}
	}
	if out.Moods, err = h.todaysMoods(ctx, userID); err != nil {
		return out, err
	}
	if out.NextEvent, err = h.nextEvent(ctx, userID); err != nil {
		return out, err
	}
	if out.UnreadNotifications, err = h.notifications.UnreadCount(ctx, userID); err != nil {
		return out, err
	}
	if out.LatestMessage, err = h.latestMessage(ctx, userID); err != nil {
		return out, err
	}
	ps, err := h.premium.Status(ctx, userID)
	if err != nil {
		return out, err
	}
	out.Premium = homePremiumJSON{IsPremium: ps.IsPremium, Source: string(ps.Source)}
	a, err := h.advice.Today(ctx, userID)
	if err != nil {
		return out, err
	}
	aj := toAdviceJSON(a)
	out.Advice = &aj
	return out, nil
}

// pairing is the pairing status's state and the partner: a partnership
// answers "connected" in one read; only without one does the state need
// the codes and requests (unpaired or pending).
func (h *homeHandler) pairing(ctx context.Context, userID string) (state, partnerID string, err error) {
	_, partnerID, ok, err := h.partners.PartnershipOf(ctx, userID)
	if err != nil || ok {
		return string(partners.StateConnected), partnerID, err
	}
	st, err := h.partners.Status(ctx, userID)
	return string(st.State), st.PartnerID, err
}

// couple fills the parts that need a partner (labels in c's language).
func (h *homeHandler) couple(ctx context.Context, c *fiber.Ctx, userID, partnerID string, out *homeReply) error {
	p, err := h.accounts.Profile(ctx, partnerID)
	if err != nil {
		return err
	}
	out.Partner = &homePartnerJSON{ID: partnerID, DisplayName: p.DisplayName}
	d, err := h.relationship.Get(ctx, userID)
	switch {
	case err == nil:
		dj := toDurationJSON(d)
		out.Relationship = &dj
	case !core.IsKind(err, core.KindNotFound):
		return err
	}
	m, err := h.relationship.NextMilestone(ctx, userID)
	if err != nil {
		return err
	}
	if m != nil {
		mj := toMilestonesJSON(c, []relationship.Milestone{*m})[0]
		out.NextMilestone = &mj
	}
	v, err := h.questions.Today(ctx, userID)
	if err != nil {
		return err
	}
	out.Streak = streakJSON{Current: v.Streak.Current, Best: v.Streak.Best}
	out.Question = &homeQuestionJSON{ID: v.Daily.ID, Text: v.Daily.Text, Date: v.Daily.Date.String(),
		AnsweredByMe: v.AnsweredByMe, AnsweredByPartner: v.AnsweredByPartner, Locked: !v.AnsweredByMe}
	return nil
}

func (h *homeHandler) todaysMoods(ctx context.Context, userID string) (homeMoodsJSON, error) {
	mine, partner, err := h.moods.Today(ctx, userID)
	var out homeMoodsJSON
	if mine != nil {
		mj := toMoodJSON(*mine)
		out.Mine = &mj
	}
	if partner != nil {
		pj := toMoodJSON(*partner)
		out.Partner = &pj
	}
	return out, err
}

// nextEvent is the first event of the caller or the partner that has not
// ended before the caller's today, by start date and time.
func (h *homeHandler) nextEvent(ctx context.Context, userID string) (*eventJSON, error) {
	loc, err := h.accounts.Location(ctx, userID)
	if err != nil {
		return nil, err
	}
	f, ok, err := h.events.Next(ctx, userID, core.Today(h.clock.Now(), loc), nextEventHorizon)
	if err != nil || !ok {
		return nil, err
	}
	e := toEventJSON(f.Event)
	return &e, nil
}

// latestMessage is the newest message of the caller's thread, cut for a
// widget.
func (h *homeHandler) latestMessage(ctx context.Context, userID string) (*homeMessageJSON, error) {
	m, ok, err := h.messages.Latest(ctx, userID)
	if err != nil || !ok {
		return nil, err
	}
	text := m.Body
	if utf8.RuneCountInString(text) > homeMessageRunes {
		text = string([]rune(text)[:homeMessageRunes])
	}
	return &homeMessageJSON{ID: m.ID, Text: text, Author: m.AuthorID, CreatedAt: core.Millis(m.CreatedAt)}, nil
}
