package tests

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDependenciesPointInward fails when core or a module imports an outer
// layer (non-test files only): core takes the standard library only; a module
// takes core, a pure library of pureLibraries, and fx in its module.go.
func TestDependenciesPointInward(t *testing.T) {
	for _, root := range []string{"../core", "../modules"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !allowedImport(path, p) {
					t.Errorf("%s imports %s", path, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestArchitectureAdaptersDoNotLeanOnEachOther fails when the API and the console import
// each other, when the contract suites import either, or when adapters/web,
// what the two share, imports one of them (test files included: a test of
// one adapter has no business with the other's internals either).
func TestArchitectureAdaptersDoNotLeanOnEachOther(t *testing.T) {
	const httpapi, console = "tandem/adapters/httpapi", "tandem/adapters/console"
	forbidden := map[string][]string{
		"../adapters/console":   {httpapi},
		"../adapters/httpapi":   {console},
		"../adapters/storetest": {httpapi, console},
		"../adapters/web":       {httpapi, console},
	}
	for root, imps := range forbidden {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if slices.Contains(imps, p) {
					t.Errorf("%s imports %s", path, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func allowedImport(file, imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	stdlib := !strings.Contains(first, ".") && first != "tandem"
	switch {
	case stdlib:
		return true
	case strings.HasPrefix(file, "../core/"):
		return imp == "tandem/core" // coretest may use core itself
	case imp == "tandem/core":
		return true
	case imp == "go.uber.org/fx":
		return filepath.Base(file) == "module.go"
	case pureLibraries[imp]:
		return strings.HasPrefix(file, "../modules/")
	}
	return false
}

// pureLibraries are outside packages a module may use for its rules: no I/O,
// no state, nothing to bind: the estimator of connection-code strength, and
// the Go project's Unicode tables (NFKC and case folding: two spellings of
// one e-mail are one account).
var pureLibraries = map[string]bool{
	"golang.org/x/text/cases":           true,
	"golang.org/x/text/unicode/norm":    true,
	"github.com/trustelem/zxcvbn":       true,
	"github.com/trustelem/zxcvbn/match": true,
}

// maxGoFileLines bounds a hand-written Go file, test support included (issue
// 46): a longer one holds more than one subject and is split by what its
// parts are about (modules/partners/service_pairing_test.go and its
// siblings, adapters/storetest/accounts_codes.go...).
const maxGoFileLines = 500

// TestNoHandWrittenGoFileIsLong fails on every Go file of the repository
// over maxGoFileLines lines that no tool generated; a generated file (the
// "Code generated ... DO NOT EDIT." line before its package clause, as
// mockgen's mock_ports_test.go) is left to its generator.
func TestNoHandWrittenGoFileIsLong(t *testing.T) {
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := bytes.Count(src, []byte("\n"))
		if lines <= maxGoFileLines {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		if !ast.IsGenerated(f) {
			t.Errorf("%s has %d lines, over %d: split it by what its parts are about", path, lines, maxGoFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pushVendor is a push provider's name as a word, in any case: Expo, FCM,
// APNs, Firebase (Export, a word of its own, is none).
var pushVendor = regexp.MustCompile(`(?i)\b(expo(nent)?|fcm|apns|firebase)\b`)

// TestNotificationsNameNoPushVendor fails when a non-test file of
// modules/notifications names a push provider, in code or in a comment: the
// module speaks of devices and deliveries; the providers, their token forms
// and their receipts are adapters/push's (notifications.Providers).
func TestNotificationsNameNoPushVendor(t *testing.T) {
	files, err := filepath.Glob("../modules/notifications/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in modules/notifications: %v", err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if m := pushVendor.FindString(line); m != "" {
				t.Errorf("%s:%d names %q: %s", path, i+1, m, strings.TrimSpace(line))
			}
		}
	}
}

// TestAProfileFieldIsFiveFiles keeps docs/recipes.md's first recipe true:
// the nickname (read and written by the API, stored in SQLite and MySQL,
// shown by the console and in the export) is named by these production
// files only. Its length message is core.TooLong's, in every language;
// the console lists accounts.Profile's Fields; one migration serves both
// databases (migrations/common); its limit is accounts.Rules'.
func TestAProfileFieldIsFiveFiles(t *testing.T) {
	want := []string{
		"adapters/httpapi/accounts.go",           // the API's shapes
		"adapters/httpapi/openapi/accounts.json", // the document
		"adapters/sqlstore/accounts.go",          // the column, both databases
		"migrations/common/00043_account_nicknames.sql",
		"modules/accounts/profile.go", // the field, its limit and rule
	}
	// The tracked files only: a build's output (bin/openapi.json) is none.
	out, err := exec.Command("git", "-C", "..", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var got []string
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		top, _, _ := strings.Cut(rel, "/")
		if strings.HasSuffix(rel, "_test.go") || strings.HasSuffix(rel, ".md") || top == "tests" || top == "docs" ||
			top == "clients" || top == "bench" || strings.HasPrefix(rel, "adapters/storetest/") {
			continue
		}
		src, err := os.ReadFile(filepath.Join("..", rel))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(bytes.ToLower(src), []byte("nickname")) {
			got = append(got, rel)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the production files naming the nickname:\n%s\nwant (docs/recipes.md):\n%s",
			strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
