package i18n

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// sourcePhrases are the English phrases sourceFormats found filling a
// message at run time, each with its place.
var sourcePhrases []string

// TestNoPhraseFillsAMessage: no message of the code is filled with English
// words at run time (a phrase in a literal or constant, one a function of
// the package returns, or one a variable is built from: "a number",
// "it contains a common password", " or "), which would stay English
// inside every translation: a sentence that varies is one whole message
// per variant.
func TestNoPhraseFillsAMessage(t *testing.T) {
	sourceFormats(t)
	for _, p := range sourcePhrases {
		t.Error(p)
	}
}

// checkFills reports the arguments filling a message that hold a phrase.
func (p *sourcePackage) checkFills(args []ast.Expr) {
	for _, a := range args {
		if lit, ok := p.phrase(a, 0); ok {
			pos := p.fset.Position(a.Pos())
			rel, _ := filepath.Rel(p.root, pos.Filename)
			*p.phrases = append(*p.phrases, filepath.ToSlash(rel)+":"+strconv.Itoa(pos.Line)+
				": an English phrase fills a message: "+strconv.Quote(lit))
		}
	}
}

// phrase finds an English phrase that e's value holds or is built from:
// a string literal with two words or an English joining word.
func (p *sourcePackage) phrase(e ast.Expr, depth int) (string, bool) {
	if depth > 4 || e == nil {
		return "", false
	}
	found := ""
	ast.Inspect(e, func(n ast.Node) bool {
		if found != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && isPhrase(s) {
				found = s
			}
		case *ast.Ident:
			if v, ok := p.consts[n.Name]; ok {
				found, _ = p.phrase(v, depth+1)
			} else if v := p.assigned(n.Name); v != nil {
				found, _ = p.phrase(v, depth+1)
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && p.funcs[id.Name] != nil && p.funcs[id.Name] != p.fn {
				found = p.returned(p.funcs[id.Name], depth+1)
			}
		}
		return true
	})
	return found, found != ""
}

// assigned is what the function being read assigns to name (the last
// assignment found; nil for a parameter or none).
func (p *sourcePackage) assigned(name string) ast.Expr {
	if p.fn == nil || p.fn.Body == nil {
		return nil
	}
	var v ast.Expr
	ast.Inspect(p.fn.Body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for i, l := range as.Lhs {
				if isIdent(l, name) {
					v = as.Rhs[i]
				}
			}
		}
		return true
	})
	return v
}

// returned is a phrase one of fd's string results holds.
func (p *sourcePackage) returned(fd *ast.FuncDecl, depth int) string {
	if fd.Body == nil || fd.Type.Results == nil || len(fd.Type.Results.List) != 1 || !isIdent(fd.Type.Results.List[0].Type, "string") {
		return ""
	}
	found := ""
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if r, ok := n.(*ast.ReturnStmt); ok && found == "" && len(r.Results) == 1 {
			found, _ = p.phrase(r.Results[0], depth)
		}
		return found == ""
	})
	return found
}

// isPhrase: s holds two words of letters, or one English joining word.
func isPhrase(s string) bool {
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	for _, w := range words {
		if w == "or" || w == "and" {
			return true
		}
	}
	return len(words) >= 2 && strings.Contains(s, " ")
}
