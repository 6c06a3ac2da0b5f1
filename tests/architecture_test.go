package tests

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
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
