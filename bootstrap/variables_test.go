package bootstrap

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestVariablesAreTheOnesTheCodeReads: every "TANDEM_*" name written in the
// service's code is in Variables and the other way round, and
// docs/configuration.md documents each in its table.
func TestVariablesAreTheOnesTheCodeReads(t *testing.T) {
	t.Parallel()
	inCode := map[string]bool{}
	name := regexp.MustCompile(`^TANDEM_[A-Z0-9_]*[A-Z0-9]$`)
	for _, dir := range []string{".", "../adapters/httpapi", "../adapters/console", "../cmd/tandem"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && name.MatchString(s) && !strings.HasPrefix(s, testPrefix) {
						inCode[s] = true
					}
				}
				return true
			})
		}
	}
	for v := range inCode {
		if !slices.Contains(Variables, v) {
			t.Errorf("%s is read by the code but missing from Variables", v)
		}
	}
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Variables {
		if !inCode[v] {
			t.Errorf("%s is in Variables but no code names it", v)
		}
		if !bytes.Contains(doc, []byte("| `"+v+"`")) {
			t.Errorf("%s is not in docs/configuration.md's table", v)
		}
	}
	if !slices.IsSorted(Variables) {
		t.Error("Variables is not sorted")
	}
}

func TestUnknownVariables(t *testing.T) {
	t.Parallel()
	got := unknownVariables([]string{"TANDEM_ADRR=:9", "TANDEM_DB=memory", "TANDEM_TYPO=1", "TANDEM_TEST_MYSQL_DSN=x",
		"HOME=/root", "TANDEM_PUSH_TIMEOUTS=1s", "NOT_TANDEM_X=1"})
	want := []string{
		"TANDEM_ADRR: not a Tandem setting; did you mean TANDEM_ADDR?",
		"TANDEM_PUSH_TIMEOUTS: not a Tandem setting; did you mean TANDEM_PUSH_TIMEOUT?",
		"TANDEM_TYPO: not a Tandem setting",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestMasked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"TANDEM_DB", "mysql:root:s3cret@tcp(db:3306)/tandem", "mysql:root:***@tcp(db:3306)/tandem"},
		{"TANDEM_DB", "mysql:root@tcp(db:3306)/tandem", "mysql:root@tcp(db:3306)/tandem"},
		{"TANDEM_DB", "sqlite:./data/tandem.db", "sqlite:./data/tandem.db"},
		{"TANDEM_MAIL", "smtp://mailer:p4ss@relay:587", "smtp://mailer:***@relay:587"},
		{"TANDEM_BUS", "nats://u:p@a:4222,nats://u:p@b:4222", "nats://u:***@a:4222,nats://u:***@b:4222"},
		{"TANDEM_BUS_SECRET", "0123456789abcdef0123456789abcdef", "***"},
		{"TANDEM_API_KEYS", "k1,k2", "***"},
		{"TANDEM_CONSOLE_SECRET", "", ""},
		{"TANDEM_PUBLIC_URL", "https://api.example.com", "https://api.example.com"},
	} {
		if got := masked(tc.name, tc.in); got != tc.want {
			t.Errorf("%s=%s: got %s, want %s", tc.name, tc.in, got, tc.want)
		}
	}
}

// `tandem config` prints every variable once, set values and defaults
// alike, with secrets masked, and never reads more than the loader did.
func TestConfigCommand(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"TANDEM_DB": "mysql:app:hunter2@tcp(db:3306)/tandem", "TANDEM_ENV": "development",
		"TANDEM_CONSOLE_SECRET": strings.Repeat("s", 32), "TANDEM_RATE_LIMIT_IP": "99"}
	var out bytes.Buffer
	if err := Run(context.Background(), []string{"config"}, env(vars), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(Variables) {
		t.Fatalf("%d lines for %d variables", len(lines), len(Variables))
	}
	for _, want := range []string{"TANDEM_DB=mysql:app:***@tcp(db:3306)/tandem", "TANDEM_CONSOLE_SECRET=***",
		"TANDEM_RATE_LIMIT_IP=99", "TANDEM_ADDR=:8080", "TANDEM_ENV=development", "TANDEM_SHUTDOWN_GRACE=5s"} {
		if !slices.Contains(lines, want) {
			t.Errorf("no line %s in\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "hunter2") || strings.Contains(out.String(), strings.Repeat("s", 32)) {
		t.Fatal("a secret was printed")
	}
}
