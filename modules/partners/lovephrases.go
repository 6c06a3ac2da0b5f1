package partners

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// A couple choosing a connection code reaches for the words they say to each
// other, and so does whoever guesses it: "iloveyou_forever", "mi_amor_2024",
// "ichliebedich". zxcvbn knows English passwords; these lists add the love
// phrases of every language Tandem speaks (en, de, fr, es, it, nl, pl,
// pt-BR, ru, tr, ja, ko, zh: adapters/i18n/catalogs). Each entry is written as people write it;
// foldLove makes it what a code can hold (lower case, no accents,
// separators or apostrophes), so one entry covers "te amo", "te_amo",
// "Te-Amo" and "teamo". Japanese, Chinese, Korean and Russian come in their
// own script and romanised: a code is ASCII, so the romanised spellings are
// the ones a code can match; the native ones keep the list whole for any
// text the rule may judge.
//
// loveWords are the phrases and pet names themselves; loveFillers are the
// words people put around them ("forever", "my", "always"). A code made only
// of fillers is not refused by this rule; one made only of love words and
// fillers, with at most maxLoveDigits digits besides (years, dates, "143",
// "520"), is.
var loveWords = []string{
	// English
	"i love you", "love you", "i luv you", "luv you", "i love u", "love u", "luv u", "ily", "ilu", "ilysm",
	"love", "luv", "lovey", "lover", "lovers", "loving", "in love", "true love", "my love", "lovebug",
	"baby", "babe", "bae", "boo", "honey", "hun", "hunny", "honeybunny", "honey bunny", "sweetheart",
	"sweetie", "sweetpea", "sugar", "darling", "dear", "dearest", "cutie", "cutiepie", "angel",
	"beloved", "hubby", "wifey", "husband", "wife", "soulmate", "soul mate", "valentine", "be mine",
	"xoxo", "xo", "kisses", "hugs", "hugs and kisses", "my heart", "heart", "sweet heart", "love of my life",
	"i miss you", "miss you", "i adore you", "adore you", "one and only", "forever yours", "yours forever",
	// German
	"ich liebe dich", "liebe dich", "ich hab dich lieb", "hab dich lieb", "ich habe dich lieb",
	"hdl", "hdgdl", "ich vermisse dich", "vermisse dich", "liebe", "liebling", "schatz", "schatzi",
	"schätzchen", "mein schatz", "hase", "häschen", "hasi", "maus", "mausi", "süße", "süßer", "engel",
	"herz", "herzchen", "bärchen", "schnucki", "schnuckel", "für immer dein", "für immer deine",
	// French
	"je t'aime", "t'aime", "je t'adore", "t'adore", "je t'aime fort", "mon amour", "amour", "mon cœur",
	"cœur", "mon chéri", "ma chérie", "chéri", "chérie", "mon bébé", "bébé", "ma puce", "mon ange",
	"ma belle", "mon trésor", "trésor", "mon chou", "doudou", "loulou", "mon loulou", "bisous", "bisou",
	"amoureux", "amoureuse", "tu me manques", "ma moitié",
	// Spanish
	"te amo", "te quiero", "te adoro", "tqm", "tkm", "te quiero mucho", "te amo mucho", "te extraño",
	"mi amor", "amor", "amor mío", "mi vida", "mi cielo", "mi corazón", "corazón", "cariño", "mi cariño",
	"mi rey", "mi reina", "mi princesa", "princesa", "mi bebé", "gordo", "gordita", "mi alma",
	"media naranja", "mi media naranja", "besos", "amor eterno", "novio", "novia",
	// Portuguese (Brazil)
	"eu te amo", "te amo", "amo você", "amo vc", "te adoro", "meu amor", "amor", "minha vida", "meu bem",
	"meu anjo", "meu coração", "coração", "meu docinho", "docinho", "mozão", "mozinho", "gatinho",
	"gatinha", "querido", "querida", "minha princesa", "saudade", "saudades", "beijos", "beijo",
	"bebê", "meu bebê", "namorado", "namorada", "te amo muito",
	// Japanese
	"愛してる", "愛している", "愛してます", "愛してるよ", "大好き", "大好きだよ", "好き", "好きだよ", "あいしてる",
	"だいすき", "すき", "ダーリン", "aishiteru", "aishiteruyo", "aishiteiru", "aishitemasu", "aishiteimasu",
	"daisuki", "daisukidayo", "sukidayo", "suki", "koibito", "dārin", "darin",
	// Russian
	"я тебя люблю", "люблю тебя", "люблю", "любовь", "любимый", "любимая", "милый", "милая", "дорогой",
	"дорогая", "солнышко", "зайка", "зайчик", "котик", "малыш", "малышка", "скучаю",
	"ya tebya lyublyu", "ja tebja ljublju", "ya tebia liubliu", "ya tebya lublu", "lyublyu tebya",
	"ljublju tebja", "lublu tebya", "lyublyu", "ljublju", "lublu", "lyubov", "ljubov", "lubov",
	"lyubimy", "lyubimiy", "lyubimyj", "lyubimaya", "ljubimaja", "milaya", "miliy", "solnyshko",
	"zaika", "zayka", "zaichik", "zaychik", "kotik", "malysh", "malyshka",
	// Italian
	"ti amo", "ti voglio bene", "tvb", "tvtb", "ti adoro", "amore", "amore mio", "tesoro", "tesoro mio",
	"cuore mio", "vita mia", "mi manchi",
	// Dutch
	"ik hou van jou", "ik hou van je", "ik houd van jou", "hou van jou", "schat", "schatje", "liefje",
	"lieverd", "mijn schat", "mijn liefje",
	// Chinese
	"我爱你", "我愛你", "爱你", "愛你", "亲爱的", "親愛的", "宝贝", "寶貝", "老公", "老婆",
	"wo ai ni", "woaini", "ai ni", "qin ai de", "baobei", "laogong", "laopo",
	// Korean
	"사랑해", "사랑해요", "사랑", "자기야", "여보", "saranghae", "saranghaeyo", "sarang", "nae sarang",
	"jagiya", "jagi", "yeobo",
	// Polish
	"kocham cię", "kocham cie", "kocham", "kochanie", "kochana", "kochany", "skarbie", "skarb", "misiu",
	"misiaczek", "żabko", "słoneczko", "tęsknię", "moja miłość", "miłość", "na zawsze",
	// Turkish
	"seni seviyorum", "seviyorum", "aşkım", "aşk", "canım", "bir tanem", "sevgilim", "hayatım",
	"tatlım", "bebeğim", "özledim", "seni özledim", "sonsuza dek",
}

var loveFillers = []string{
	// English
	"forever", "4ever", "4eva", "foreva", "forevah", "always", "and", "n", "you", "u", "ya", "yu", "me",
	"my", "mine", "i", "so", "much", "very", "too", "only", "one", "all", "yours", "your", "ur", "our",
	"us", "we", "together", "eternal", "eternally", "for", "the", "a", "is", "to", "of", "with", "still",
	"more", "most", "big", "little", "lil", "sweet", "happy", "just", "only you", "lots",
	// German
	"für immer", "immer", "ewig", "für", "mein", "meine", "dich", "dir", "du", "und", "ich", "sehr",
	"uns", "wir", "zusammen", "lieb", "ganz",
	// French
	"toujours", "pour toujours", "pour la vie", "pour", "la vie", "mon", "ma", "mes", "toi", "moi",
	"toi et moi", "et", "je", "te", "tu", "beaucoup", "tant", "nous", "ensemble", "à jamais", "éternel",
	"éternelle", "fort",
	// Spanish
	"siempre", "para siempre", "por siempre", "mucho", "muchísimo", "mi", "mío", "mía", "tu", "te", "yo",
	"y", "para", "por", "eterno", "eterna", "juntos", "nosotros", "toda", "la", "vida",
	// Portuguese
	"para sempre", "pra sempre", "sempre", "meu", "minha", "você", "vc", "eu", "e", "muito", "nós",
	"juntos", "eterno", "eterna",
	// Japanese
	"zutto", "itsumo", "issho", "dayo", "yo", "anata", "kimi", "ずっと", "いつも",
	// Russian
	"навсегда", "всегда", "моя", "мой", "тебя", "я", "navsegda", "vsegda", "moya", "moja", "moy", "moi",
	"moj", "tebya", "tebja", "ya", "ja",
	// Italian
	"per sempre", "sempre", "mio", "mia", "per", "ti",
	// Dutch
	"voor altijd", "altijd", "mijn", "jou", "je", "ik",
	// Chinese, Korean
	"永远", "永遠", "一生一世", "yongyuan", "yi sheng yi shi", "영원히", "yeongwonhi", "nae",
}

// maxLoveDigits is how many digits a code of love words may hold besides
// them and still be refused: a year (4), a date (ddmmyyyy, 8), "143" or
// "520". Eight random digits are themselves about the least guesses a code
// must need (MinConnectionGuesses).
const maxLoveDigits = 8

// loveToken is one entry of the vocabulary, folded.
type loveToken struct {
	runes []rune
	love  bool // a love word (else a filler)
}

var loveVocabulary = buildLoveVocabulary()

func buildLoveVocabulary() []loveToken {
	seen := map[string]bool{}
	var out []loveToken
	add := func(entries []string, love bool) {
		for _, e := range entries {
			// German umlauts are also written ae, oe, ue.
			for _, spelling := range []string{e, umlauts.Replace(strings.ToLower(e))} {
				f := foldLove(spelling)
				if len(f) == 0 || seen[string(f)] {
					continue
				}
				seen[string(f)] = true
				out = append(out, loveToken{runes: f, love: love})
			}
		}
	}
	add(loveWords, true) // first: a spelling that is both counts as love
	add(loveFillers, false)
	return out
}

var umlauts = strings.NewReplacer("ä", "ae", "ö", "oe", "ü", "ue")

// foldLove is s as a code's characters compare with the vocabulary: lower
// case, accents dropped (é is e, ñ is n), ß ss, œ oe, æ ae, the leetspeak
// symbols @ $ ! as a s i, and every character that is neither a letter nor
// a digit (the separators _ - . and space, apostrophes) left out.
func foldLove(s string) []rune {
	out := make([]rune, 0, len(s))
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == 'ß':
			out = append(out, 's', 's')
		case r == 'œ':
			out = append(out, 'o', 'e')
		case r == 'æ':
			out = append(out, 'a', 'e')
		case r == '@':
			out = append(out, 'a')
		case r == '$':
			out = append(out, 's')
		case r == '!':
			out = append(out, 'i')
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			out = append(out, r)
		}
	}
	return out
}

// leet is what a digit in a code may stand for: 1l0v3y0u is iloveyou.
var leet = map[rune]string{'0': "o", '1': "il", '3': "e", '4': "a", '5': "s", '7': "t", '8': "b", '9': "g"}

func sameLoveRune(code, word rune) bool {
	return code == word || strings.ContainsRune(leet[code], word)
}

// matchesAt reports whether s holds t at i. Leetspeak counts in words of
// three letters or more: a lone 1, 3 or 4 read as the fillers "i", "e" or
// "a" would let any digits through free.
func (t loveToken) matchesAt(s []rune, i int) bool {
	if len(t.runes) > len(s)-i {
		return false
	}
	leetOK := len(t.runes) >= 3
	for k, w := range t.runes {
		if c := s[i+k]; c != w && !(leetOK && sameLoveRune(c, w)) {
			return false
		}
	}
	return true
}

// LovePhrase reports whether code, folded (foldLove), is made of love
// words and fillers only, at least one love word among them, with at most
// maxLoveDigits digits besides anywhere (a year, a date): "iloveyou_forever",
// "mi_amor_2024", "ichliebedich", "1l0v3-y0u", "je-taime-mon-amour".
func LovePhrase(code string) bool {
	s := foldLove(code)
	if len(s) == 0 {
		return false
	}
	// digits[i][love]: the fewest digits outside the vocabulary with which
	// s[:i] is made of vocabulary, holding a love word (love=1) or not.
	const none = 1 << 30
	digits := make([][2]int, len(s)+1)
	for i := range digits {
		digits[i] = [2]int{none, none}
	}
	digits[0][0] = 0
	for i := range s {
		for love := range 2 {
			d := digits[i][love]
			if d == none {
				continue
			}
			if unicode.IsDigit(s[i]) && d+1 < digits[i+1][love] {
				digits[i+1][love] = d + 1
			}
			for _, t := range loveVocabulary {
				if !t.matchesAt(s, i) {
					continue
				}
				next := love
				if t.love {
					next = 1
				}
				if j := i + len(t.runes); d < digits[j][next] {
					digits[j][next] = d
				}
			}
		}
	}
	return digits[len(s)][1] <= maxLoveDigits
}
