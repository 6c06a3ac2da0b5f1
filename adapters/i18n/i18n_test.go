package i18n_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"tandem/adapters/i18n"
	"tandem/core"
)

var catalogs = i18n.MustLoad(map[string]string{"question.q1": "What made you smile today?"})

// TestPluralForms: the counts 0, 1, 2, 5 and 21 take each language's CLDR
// form (French and Portuguese say 0 in the singular; Russian has one, few
// and many, 21 being "one"; Japanese has one form), and 1 its exact "=1"
// form where the language's "one" is more than the number 1 ("un message",
// not "1 message"). Then every plural text of every catalog present, for
// counts up to 1000: the form CLDR's rule picks, or the exact one.
func TestPluralForms(t *testing.T) {
	t.Parallel()
	want := map[string][5]string{
		"en": {"Your partner sent you 0 messages.", "Your partner sent you a message.", "Your partner sent you 2 messages.",
			"Your partner sent you 5 messages.", "Your partner sent you 21 messages."},
		"de": {"Dein Schatz hat dir 0 Nachrichten geschickt.", "Dein Schatz hat dir eine Nachricht geschickt.",
			"Dein Schatz hat dir 2 Nachrichten geschickt.", "Dein Schatz hat dir 5 Nachrichten geschickt.",
			"Dein Schatz hat dir 21 Nachrichten geschickt."},
		"fr": {"Ta moitié t’a envoyé 0 message.", "Ta moitié t’a envoyé un message.", "Ta moitié t’a envoyé 2 messages.",
			"Ta moitié t’a envoyé 5 messages.", "Ta moitié t’a envoyé 21 messages."},
		"es": {"Tu pareja te ha enviado 0 mensajes.", "Tu pareja te ha enviado un mensaje.",
			"Tu pareja te ha enviado 2 mensajes.", "Tu pareja te ha enviado 5 mensajes.",
			"Tu pareja te ha enviado 21 mensajes."},
		"pt-BR": {"Seu amor enviou 0 mensagem para você.", "Seu amor enviou uma mensagem para você.",
			"Seu amor enviou 2 mensagens para você.", "Seu amor enviou 5 mensagens para você.",
			"Seu amor enviou 21 mensagens para você."},
		"ja": {"パートナーから0件のメッセージが届きました。", "パートナーからメッセージが届きました。",
			"パートナーから2件のメッセージが届きました。", "パートナーから5件のメッセージが届きました。",
			"パートナーから21件のメッセージが届きました。"},
		"ru": {"Твоя половинка отправила тебе 0 сообщений.", "Твоя половинка отправила тебе сообщение.",
			"Твоя половинка отправила тебе 2 сообщения.", "Твоя половинка отправила тебе 5 сообщений.",
			"Твоя половинка отправила тебе 21 сообщение."},
		"it": {"La tua metà ti ha inviato 0 messaggi.", "La tua metà ti ha inviato un messaggio.",
			"La tua metà ti ha inviato 2 messaggi.", "La tua metà ti ha inviato 5 messaggi.",
			"La tua metà ti ha inviato 21 messaggi."},
		"nl": {"Je lief heeft je 0 berichten gestuurd.", "Je lief heeft je een bericht gestuurd.",
			"Je lief heeft je 2 berichten gestuurd.", "Je lief heeft je 5 berichten gestuurd.",
			"Je lief heeft je 21 berichten gestuurd."},
		"pl": {"Twoja druga połówka wysłała ci 0 wiadomości.", "Twoja druga połówka wysłała ci wiadomość.",
			"Twoja druga połówka wysłała ci 2 wiadomości.", "Twoja druga połówka wysłała ci 5 wiadomości.",
			"Twoja druga połówka wysłała ci 21 wiadomości."},
		"tr": {"Sevgilin sana 0 mesaj gönderdi.", "Sevgilin sana bir mesaj gönderdi.",
			"Sevgilin sana 2 mesaj gönderdi.", "Sevgilin sana 5 mesaj gönderdi.",
			"Sevgilin sana 21 mesaj gönderdi."},
		"ko": {"연인이 메시지를 0개 보냈어요.", "연인이 메시지를 보냈어요.", "연인이 메시지를 2개 보냈어요.",
			"연인이 메시지를 5개 보냈어요.", "연인이 메시지를 21개 보냈어요."},
		"zh-Hans": {"你的另一半给你发了 0 条消息。", "你的另一半给你发了一条消息。", "你的另一半给你发了 2 条消息。",
			"你的另一半给你发了 5 条消息。", "你的另一半给你发了 21 条消息。"},
	}
	for locale, texts := range want {
		for i, n := range []int{0, 1, 2, 5, 21} {
			if got := catalogs.Translate(locale, core.Msg("activity.messageSent.body", n)); got != texts[i] {
				t.Errorf("%s, %d: %q, want %q", locale, n, got, texts[i])
			}
		}
	}
	all, err := i18n.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(catalogs.Languages()) {
		t.Fatalf("%d catalog files, %d languages loaded", len(all), len(catalogs.Languages()))
	}
	for tag, f := range all {
		for _, texts := range []map[string]json.RawMessage{f.Messages, f.Errors} {
			for key, raw := range texts {
				x, err := i18n.ParseText(raw)
				if err != nil {
					t.Fatalf("%s %s: %v", tag, key, err)
				}
				if x.Plural != nil {
					checkPlural(t, tag, key, x.Plural)
				}
			}
		}
	}
}

// checkPlural renders key in tag for counts 0 to 1000 and compares each
// with the form the count takes: its exact "=N" form, else the CLDR
// category's, filled by tag's printer.
func checkPlural(t *testing.T, tag language.Tag, key string, p *i18n.Plural) {
	t.Helper()
	p0 := message.NewPrinter(tag)
	names := map[plural.Form]string{plural.Other: "other", plural.Zero: "zero", plural.One: "one", plural.Two: "two",
		plural.Few: "few", plural.Many: "many"}
	for n := 0; n <= 1000; n++ {
		form, ok := p.Forms["="+strconv.Itoa(n)]
		if !ok {
			form, ok = p.Forms[names[plural.Cardinal.MatchPlural(tag, n, 0, 0, 0, 0)]]
		}
		if !ok {
			t.Errorf("%s %s: no form for %d", tag, key, n)
			return
		}
		args := sampleArgs(p, n)
		if got, want := catalogs.Translate(tag.String(), core.Message{Key: key, Args: args}), p0.Sprintf(form, args...); got != want {
			t.Errorf("%s %s, %d: %q, want %q", tag, key, n, got, want)
			return
		}
	}
}

// sampleArgs fill a plural's forms: n for the count and for every other
// %d, "X" for the rest (up to the highest argument any form uses).
func sampleArgs(p *i18n.Plural, n int) []any {
	kinds := map[int]byte{}
	for _, text := range p.Forms {
		next := 1
		for _, m := range verbs.FindAllStringSubmatch(text, -1) {
			if m[3] == "%" {
				continue
			}
			i := next
			if m[2] != "" {
				i, _ = strconv.Atoi(m[2])
			}
			next = i + 1
			kinds[i] = m[3][0]
		}
	}
	args := make([]any, 0, len(kinds))
	for i := 1; i <= len(kinds) || i <= p.Arg; i++ {
		if kinds[i] == 'd' || i == p.Arg {
			args = append(args, n)
		} else {
			args = append(args, "X")
		}
	}
	return args
}

var verbs = regexp.MustCompile(`%(\[(\d+)\])?[-+# 0]*\d*(?:\.\d+)?([a-zA-Z%])`)

// TestNumbersAndDates: counts and dates in the locale's form.
func TestNumbersAndDates(t *testing.T) {
	t.Parallel()
	valentine := core.Date{Year: 2026, Month: 2, Day: 14}
	cases := []struct {
		locale string
		m      core.Message
		want   string
	}{
		{"en", core.Msg("milestone.days.title", 3000), "3,000 days together today"},
		{"de", core.Msg("activity.memoryAdded.body", 1234), "Dein Schatz hat 1.234 Erinnerungen hinzugefügt."},
		{"en", core.Msg("milestone.days.body", 100, valentine), "Day 100 since you got together on 14 February 2026."},
		{"de", core.Msg("date.long", "14", "Februar", "2026", "2"), "14. Februar 2026"},
	}
	for _, tc := range cases {
		if got := catalogs.Translate(tc.locale, tc.m); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.locale, tc.m.Key, got, tc.want)
		}
	}
	for locale, date := range map[string]string{"en": "14 February 2026", "de": "14. Februar 2026",
		"fr": "14 février 2026", "es": "14 de febrero de 2026", "pt-BR": "14 de fevereiro de 2026",
		"ja": "2026年2月14日", "ru": "14 февраля 2026 г.",
		"it": "14 febbraio 2026", "nl": "14 februari 2026", "pl": "14 lutego 2026",
		"tr": "14 Şubat 2026", "ko": "2026년 2월 14일", "zh-Hans": "2026年2月14日"} {
		if got := catalogs.Translate(locale, core.Msg("milestone.days.body", 100, valentine)); !strings.Contains(got, date) {
			t.Errorf("%s: %q does not write the date as %q", locale, got, date)
		}
	}
	first := core.Date{Year: 2026, Month: 3, Day: 1}
	for _, tc := range []struct {
		locale string
		at     core.TimeOfDay
		want   string
	}{
		{"fr", core.TimeOfDay{Hour: 19, Minute: 30}, "Commence le 1er mars 2026 à 19 h 30, dans 3 jours."},
		{"pt-BR", core.TimeOfDay{Hour: 1, Minute: 30}, "Começa em 1º de março de 2026 à 1:30, daqui a 3 dias."},
		{"pt-BR", core.TimeOfDay{Hour: 13, Minute: 0}, "Começa em 1º de março de 2026 às 13:00, daqui a 3 dias."},
		{"es", core.TimeOfDay{Hour: 1, Minute: 30}, "Empieza el 1 de marzo de 2026 a la 1:30, dentro de 3 días."},
		{"es", core.TimeOfDay{Hour: 13, Minute: 30}, "Empieza el 1 de marzo de 2026 a las 13:30, dentro de 3 días."},
		{"es-419", core.TimeOfDay{Hour: 1, Minute: 5}, "a la 1:05"},
		{"en", core.TimeOfDay{Hour: 9, Minute: 5}, "Starts on 1 March 2026 at 09:05, in 3 days."},
		{"de", core.TimeOfDay{Hour: 19}, "Beginnt am 1. März 2026 um 19:00, in 3 Tagen."},
	} {
		got := catalogs.Translate(tc.locale, core.Msg("event.reminder.days.at.body", "Essen", first, 3, tc.at))
		if got != tc.want && !(len(tc.want) < 12 && strings.Contains(got, tc.want)) {
			t.Errorf("%s %v: %q, want %q", tc.locale, tc.at, got, tc.want)
		}
	}
	if got := catalogs.Translate("de", core.Msg("event.reminder.days.at.body", "Essen", valentine, 3, core.TimeOfDay{Hour: 19})); !strings.Contains(got, "3 Tagen") {
		t.Errorf("de: %q does not say in 3 Tagen", got)
	}
}

// TestMatching: the closest supported language, English when none is
// close; a language that is merely related (Ukrainian, Russian) is not
// taken for it.
func TestMatching(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"": "en", "de": "de", "de-CH": "de", "de-AT,en;q=0.5": "de", "pt-PT": "pt-BR", "pt": "pt-BR",
		"fr-CA": "fr", "es-ES": "es", "ja-JP": "ja", "uk": "en", "uk,ru;q=0.5": "ru", "nl,fr;q=0.8": spoken("nl", "fr"),
		"fi,fr;q=0.8": "fr", "it-IT": "it", "it-CH,de;q=0.8": "it", "nl-BE": "nl", "nl-NL,en;q=0.5": "nl",
		"pl": "pl", "pl-PL,en;q=0.8": "pl", "cs": "en", "sk": "en",
		"tr": "tr", "tr-TR": "tr", "tr-CY,en;q=0.5": "tr",
		"ko": "ko", "ko-KR": "ko", "ko-KR,en;q=0.5": "ko",
		"zh-CN": "zh-Hans", "zh-SG": "zh-Hans", "zh-Hans": "zh-Hans", "zh": "zh-Hans", "zh-Hans-HK": "zh-Hans",
		// Traditional Chinese is not sent Simplified: the reader's next language, else English
		"zh-TW": "en", "zh-HK": "en", "zh-MO": "en", "zh-Hant": "en", "zh-TW,ja;q=0.5": "ja",
		"zh-TW,zh-CN;q=0.5": "zh-Hans", "zh-HK,zh-Hans;q=0.8,en;q=0.5": "zh-Hans",
		"zh-TW,zh;q=0.9,en;q=0.8": "en", "zh-HK,zh;q=0.9,ja;q=0.8": "ja", "zh,zh-TW;q=0.5": "zh-Hans",
		"en-GB,de;q=0.9": "en", "*": "en", "!!": "en", "x;q=abc": "en",
	} {
		if got := catalogs.Match(header); got != want {
			t.Errorf("Match(%q) = %q, want %q", header, got, want)
		}
	}
	for locale, want := range map[string]string{"pt-PT": "pt-BR", "de-CH": "de", "it": spoken("it", "en"), "it-CH": "it",
		"fi": "en", "tr-TR": "tr", "ko-KR": "ko", "zh-CN": "zh-Hans", "zh-SG": "zh-Hans", "zh-TW": "en", "zh-Hant-HK": "en",
		"": "en", "zz-Bogus": "en"} {
		if got := catalogs.Supported(locale); got != want {
			t.Errorf("Supported(%q) = %q, want %q", locale, got, want)
		}
	}
	if got := catalogs.Languages(); len(got) < 8 || got[0] != "en" {
		t.Errorf("Languages() = %v", got)
	}
	for header, want := range map[string]string{"it-IT,it;q=0.9,en;q=0.8": "it-IT", "pt-PT": "pt-PT", "*": "",
		"en;q=0.5,de-AT": "de-AT", "!!": "", "zh-hant-tw": "zh-Hant-TW"} {
		if got := catalogs.Preferred(header); got != want {
			t.Errorf("Preferred(%q) = %q, want %q", header, got, want)
		}
	}
}

// spoken is lang when a catalog writes it, else instead (the test follows
// the catalogs present).
func spoken(lang, instead string) string {
	for _, l := range catalogs.Languages() {
		if l == lang {
			return lang
		}
	}
	return instead
}

// TestNeighbours: each decision on a language Tandem does not speak.
// Russian where it is an official language beside the speaker's (be, kk,
// ky, tg, tt, ba), never for Armenian, Georgian, Uzbek, Mongolian or
// Ukrainian; Azerbaijani in Turkish; Spain's Spanish for Galician, Basque,
// Catalan; French for Breton, Occitan, Corsican; German for Luxembourgish,
// Romansh, Swiss German; Dutch for Frisian, not for Afrikaans; Latin
// American Spanish for Latin America and the US, Spain's for Spain;
// Traditional Chinese never in Simplified.
func TestNeighbours(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"be": "ru", "kk": "ru", "ky": "ru", "tg": "ru", "tt": "ru", "ba": "ru", "be-BY": "ru",
		"hy": "en", "hy-AM": "en", "ka": "en", "uz": "en", "mn": "en", "uk": "en", "az": spoken("tr", "en"),
		"gl": "es", "eu": "es", "ca": "es", "ca-ES": "es", "ast": "es", "an": "es",
		"br": "fr", "oc": "fr", "co": "fr", "lb": "de", "rm": "de", "gsw": "de",
		"fy": spoken("nl", "en"), "af": "en",
		"es-ES": "es", "es": "es", "es-MX": "es-419", "es-AR": "es-419", "es-US": "es-419", "es-CO": "es-419",
		"es-419": "es-419", "es-CL": "es-419",
		"zh-TW": "en", "zh-Hant": "en", "zh-HK": "en", "zh-MO": "en", "zh-CN": spoken("zh-Hans", "en"),
		"hy,ru;q=0.5": "ru", "zh-TW,zh-CN;q=0.8": spoken("zh-Hans", "en"),
	} {
		if got := catalogs.Match(header); got != want {
			t.Errorf("Match(%q) = %q, want %q", header, got, want)
		}
	}
	for lang, to := range i18n.Neighbours {
		want := "en"
		if to != "" {
			want = catalogs.Supported(to)
		}
		if got := catalogs.Match(lang); got != want {
			t.Errorf("%s is read in %q, want %q (its neighbour %q)", lang, got, want, to)
		}
	}
}

// TestFallbacks: a key no catalog holds is its English (the key itself
// when the message has none); a source text
// (the banks' English) answers in English where no translation exists;
// an error format is written with its arguments in the reader's numbers.
func TestFallbacks(t *testing.T) {
	t.Parallel()
	asMessage := func(e *core.Error) core.Message { return core.Message{Key: e.ID, Args: e.Args, English: e.Format} }
	required, tooLong := asMessage(core.Required("title")), asMessage(core.TooLong("title", 2000))
	cases := []struct {
		locale string
		m      core.Message
		want   string
	}{
		{"en", tooLong, "title must be at most 2000 characters"},
		{"de", required, "title ist erforderlich"},
		{"fi", required, "title is required"},
		{"de", core.Message{Key: "nobody.knowsThis", Args: []any{3}, English: "%d new things"}, "3 new things"},
		{"en", core.Msg("question.q1"), "What made you smile today?"},
		{"de", core.Msg("question.q1"), "What made you smile today?"},
		{"en", core.Msg("no such text %q", "x"), `no such text "x"`},
	}
	for _, tc := range cases {
		if got := catalogs.Translate(tc.locale, tc.m); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.locale, tc.m.Key, got, tc.want)
		}
	}
}
