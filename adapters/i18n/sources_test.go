package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// errorConstructors are core's error constructors and the index of each
// one's English format; its stable id is the argument before it.
var errorConstructors = map[string]int{
	"Invalid": 2, "NotFound": 2, "Conflict": 2, "Forbidden": 2, "Unauthorized": 2,
	"Unavailable": 2, "TooLarge": 2, "Unsupported": 2, "InsufficientStorage": 2,
	"Unprocessable": 2, "RateLimited": 2, "Gone": 2, "InvalidRequest": 1,
}

// sourceDirs are the repository's directories whose texts reach a user.
var sourceDirs = []string{"core", "modules", "adapters", "bootstrap"}

// sourceText is a message the code writes: its English format and the
// place ("path:line", the path relative to the repository) of its first use.
type sourceText struct{ format, place string }

// sourceFormats is every message the code writes, by its stable id (the
// argument before the format, or an Error literal's ID). It reads the non-test Go files of sourceDirs and looks at
// the calls of core's error constructors, of each package's own printf
// wrappers (a function, not a method, whose parameters hold format string
// followed by args ...any, such as httpapi's say, its id the parameter
// before), and at the ID and Format of core.Error literals. An id and a
// format must each be a string literal,
// a concatenation of them, or a package-level string constant of the
// package: any other is reported, naming its place. A wrapper forwarding its
// format (format or x.format, with args...) is a pass-through: the formats
// are collected where they are written; so is a failure's f.format passed
// on with its f.args... (adapters/purchases/appstore).
func sourceFormats(t *testing.T) map[string]sourceText {
	t.Helper()
	root := repoRoot(t)
	module := modulePath(t, root)
	pkgs := map[string][]string{} // directory -> its non-test Go files
	for _, dir := range sourceDirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				pkgs[filepath.Dir(path)] = append(pkgs[filepath.Dir(path)], path)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walking %s: %v", dir, err)
		}
	}
	dirs := make([]string, 0, len(pkgs))
	for d := range pkgs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)

	formats := map[string]sourceText{}
	var phrases []string
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files := pkgs[dir]
		sort.Strings(files)
		var parsed []*ast.File
		for _, path := range files {
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("parsing %s: %v", path, err)
			}
			parsed = append(parsed, f)
		}
		rel, _ := filepath.Rel(root, dir)
		isCore := filepath.ToSlash(rel) == "core"
		p := &sourcePackage{t: t, fset: fset, root: root, consts: map[string]ast.Expr{},
			wrappers: map[string]int{}, formats: formats}
		if isCore {
			for name, i := range errorConstructors {
				p.wrappers[name] = i
			}
		}
		p.funcs, p.phrases = map[string]*ast.FuncDecl{}, &phrases
		for _, f := range parsed {
			p.declare(f)
		}
		if isCore {
			for name, i := range errorConstructors {
				p.wrappers[name] = i // RateLimited's format is msg
			}
		}
		for _, f := range parsed {
			p.coreName = ""
			if !isCore {
				p.coreName = importName(f, module+"/core")
			}
			p.errorType = ""
			if isCore {
				p.errorType = "Error"
			}
			for _, d := range f.Decls {
				p.forwarding, p.fn = nil, nil
				if fd, ok := d.(*ast.FuncDecl); ok {
					p.fn = fd
				}
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
					if _, ok := p.wrappers[fd.Name.Name]; ok {
						p.forwarding = paramNames(fd.Type)
					}
				}
				ast.Inspect(d, p.visit)
			}
		}
	}
	sourcePhrases = phrases
	return formats
}

// sourcePackage is one package being read.
type sourcePackage struct {
	t         *testing.T
	fset      *token.FileSet
	root      string
	consts    map[string]ast.Expr // package-level constants: name -> value
	wrappers  map[string]int      // printf wrappers: name -> index of format
	formats   map[string]sourceText
	coreName  string // the file's name of package core ("" if not imported)
	errorType string // "Error" in package core itself
	// forwarding is the parameters of the message function being read
	// (nil in any other): it passes them on, its callers write them.
	forwarding map[string]bool
	fn         *ast.FuncDecl            // the function being read
	funcs      map[string]*ast.FuncDecl // the package's functions
	phrases    *[]string                // English phrases that fill a message (english_sources_test.go)
}

// declare records f's package-level constants and printf wrappers.
func (p *sourcePackage) declare(f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok != token.CONST {
				continue
			}
			for _, s := range d.Specs {
				vs := s.(*ast.ValueSpec)
				if len(vs.Values) != len(vs.Names) {
					continue
				}
				for i, n := range vs.Names {
					p.consts[n.Name] = vs.Values[i]
				}
			}
		case *ast.FuncDecl:
			if d.Recv != nil {
				continue
			}
			p.funcs[d.Name.Name] = d
			if i, ok := formatParam(d.Type); ok {
				p.wrappers[d.Name.Name] = i
			}
		}
	}
}

// formatParam is the index of the format parameter of a printf wrapper:
// format string, directly followed by args ...any.
func formatParam(ft *ast.FuncType) (int, bool) {
	type param struct {
		name string
		typ  ast.Expr
	}
	var params []param
	for _, f := range ft.Params.List {
		if len(f.Names) == 0 {
			params = append(params, param{"", f.Type})
		}
		for _, n := range f.Names {
			params = append(params, param{n.Name, f.Type})
		}
	}
	for i := 0; i+1 < len(params); i++ {
		if params[i].name != "format" || !isIdent(params[i].typ, "string") {
			continue
		}
		if e, ok := params[i+1].typ.(*ast.Ellipsis); ok && (isIdent(e.Elt, "any") || isEmptyInterface(e.Elt)) {
			return i, true
		}
	}
	return 0, false
}

func (p *sourcePackage) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.CallExpr:
		i, ok := p.formatIndex(n)
		if !ok || i >= len(n.Args) || i == 0 {
			return true
		}
		arg := n.Args[i]
		if p.forwarded(arg) || n.Ellipsis.IsValid() && isSelector(arg, "format") {
			return true
		}
		p.collect(n.Args[i-1], arg, "call")
		p.checkFills(n.Args[i+1:])
	case *ast.CompositeLit:
		if !p.isErrorType(n.Type) {
			return true
		}
		var id, format ast.Expr
		for _, el := range n.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Format") && !p.forwarded(kv.Value) {
				format = kv.Value
			} else if ok && isIdent(kv.Key, "ID") && !p.forwarded(kv.Value) {
				id = kv.Value
			}
		}
		if format != nil {
			p.collect(id, format, "core.Error literal")
		}
	}
	return true
}

// formatIndex is the index of call's format argument, if call is one of a
// message.
func (p *sourcePackage) formatIndex(call *ast.CallExpr) (int, bool) {
	switch fn := call.Fun.(type) {
	case *ast.Ident:
		i, ok := p.wrappers[fn.Name]
		return i, ok
	case *ast.SelectorExpr:
		if p.coreName != "" && isIdent(fn.X, p.coreName) {
			i, ok := errorConstructors[fn.Sel.Name]
			return i, ok
		}
	}
	return 0, false
}

func (p *sourcePackage) isErrorType(e ast.Expr) bool {
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = u.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		return p.errorType != "" && e.Name == p.errorType
	case *ast.SelectorExpr:
		return p.coreName != "" && isIdent(e.X, p.coreName) && e.Sel.Name == "Error"
	}
	return false
}

// textID is a stable id: dotted lower camel case words, such as
// "events.endBeforeStart".
var textID = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*(\.[a-z][a-zA-Z0-9]*)+$`)

// collect records the constant id and format, or reports them.
func (p *sourcePackage) collect(idArg, formatArg ast.Expr, what string) {
	pos := p.fset.Position(formatArg.Pos())
	path, err := filepath.Rel(p.root, pos.Filename)
	if err != nil {
		path = pos.Filename
	}
	place := filepath.ToSlash(path) + ":" + strconv.Itoa(pos.Line)
	s, ok := p.constant(formatArg, map[string]bool{})
	if !ok {
		p.t.Errorf("%s: the format of this %s is not a constant string (a literal, a concatenation of literals or a package-level constant)", place, what)
		return
	}
	if idArg != nil && p.forwarded(idArg) {
		return
	}
	id, ok := "", false
	if idArg != nil {
		id, ok = p.constant(idArg, map[string]bool{})
	}
	if !ok || !textID.MatchString(id) {
		p.t.Errorf("%s: the %s of %q has no stable id (a constant such as \"events.endBeforeStart\")", place, what, s)
		return
	}
	if prev, seen := p.formats[id]; seen && prev.format != s {
		p.t.Errorf("%s: id %s is also %q (%s): one id, one text", place, id, prev.format, prev.place)
		return
	} else if !seen {
		p.formats[id] = sourceText{format: s, place: place}
	}
}

// constant is the value of a constant string expression of the package.
func (p *sourcePackage) constant(e ast.Expr, resolving map[string]bool) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return p.constant(e.X, resolving)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok := p.constant(e.X, resolving)
		if !ok {
			return "", false
		}
		y, ok := p.constant(e.Y, resolving)
		return x + y, ok
	case *ast.Ident:
		v, ok := p.consts[e.Name]
		if !ok || resolving[e.Name] {
			return "", false
		}
		resolving[e.Name] = true
		defer delete(resolving, e.Name)
		return p.constant(v, resolving)
	}
	return "", false
}

// forwarded says whether arg is a parameter of the message function being
// read: the function passes on a format it was given, not one it writes.
func (p *sourcePackage) forwarded(arg ast.Expr) bool {
	id, ok := arg.(*ast.Ident)
	return ok && p.forwarding[id.Name]
}

// isSelector says whether e is x.name (a failure's f.format, passed on with
// its f.args...).
func isSelector(e ast.Expr, name string) bool {
	s, ok := e.(*ast.SelectorExpr)
	return ok && s.Sel.Name == name
}

func paramNames(ft *ast.FuncType) map[string]bool {
	names := map[string]bool{}
	for _, f := range ft.Params.List {
		for _, n := range f.Names {
			names[n.Name] = true
		}
	}
	return names
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func isEmptyInterface(e ast.Expr) bool {
	it, ok := e.(*ast.InterfaceType)
	return ok && (it.Methods == nil || len(it.Methods.List) == 0)
}

// importName is the name f knows the package of path by ("" if f does not
// import it).
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err != nil || p != path {
			continue
		}
		if imp.Name != nil {
			return imp.Name.Name
		}
		return path[strings.LastIndex(path, "/")+1:]
	}
	return ""
}

// repoRoot is the nearest directory above the working one holding go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

func modulePath(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

func TestSourceFormatsAreConstant(t *testing.T) {
	texts := sourceFormats(t)
	if len(texts) <= 200 {
		t.Errorf("found %d texts, want more than 200: is the reader missing calls?", len(texts))
	}
	formats := map[string]bool{}
	for _, x := range texts {
		formats[x.format] = true
	}
	for _, want := range []string{
		"%s is required", // core.Required
		"%s must be a date in the form YYYY-MM-DD", // a format with an argument
		"logged in",                        // httpapi's say
		"method not allowed on this route", // a core.Error literal
		"{1|%[1]d event|%[1]d events} overlapping %s to %s",                 // say with arguments and a plural
		"bundle id %q is not this app's",                                    // appstore's fail wrapper
		"%s must not contain control characters (tab and newline included)", // core's own constructors
	} {
		if !formats[want] {
			t.Errorf("format %q not found", want)
		}
	}
}
