package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// call is one constructor call being checked.
type call struct {
	fi  *fileInfo
	sig *builtins.Signature
	x   *syntax.CallExpr
	bad bool
	// guessed: the call names an undefined function, checked as the
	// constructor it likely meant; what it lacks is not reported.
	guessed bool
}

func (k *call) name() string { return k.sig.Name }

// fail reports a broken argument of the call; the dry run would stop here.
func (c *checker) fail(k *call, pos syntax.Position, format string, args ...any) {
	c.report(contrib.ArgumentInvalid, pos, format, args...)
	if !k.bad {
		k.bad = true
		c.broken = append(c.broken, posOf(k.x.Lparen))
	}
}

// checkCalls checks every constructor call of a file: its keywords, the
// literal types of its arguments, and the callbacks it names.
func (c *checker) checkCalls(fi *fileInfo) {
	syntax.Walk(fi.f, func(n syntax.Node) bool {
		x, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		id, ok := x.Fn.(*syntax.Ident)
		if !ok {
			return true
		}
		name, guessed := id.Name, false
		if undefinedUse(id) {
			// tol(...): the compiler says undefined (did you mean tool?);
			// check the call as the constructor it likely meant, so its
			// other mistakes show in the same run.
			name, guessed = contrib.Nearest(name, builtins.PredeclaredNames()), true
		} else if !predeclaredUse(fi, id) {
			return true
		}
		if sig := builtins.LookupSignature(name); sig != nil {
			c.checkCall(&call{fi: fi, sig: sig, x: x, guessed: guessed})
		} else if name == "error" && !guessed {
			c.checkErrorCode(x)
		}
		return true
	})
}

// checkErrorCode reports error("tool_unavailable", ...) with a literal code
// the host reserves: the call would fail as tool_failed when it runs.
func (c *checker) checkErrorCode(x *syntax.CallExpr) {
	if len(x.Args) == 0 {
		return
	}
	code, ok := StringLiteral(x.Args[0])
	if !ok || !contrib.ReservedCode(code) {
		return
	}
	pos, _ := x.Args[0].Span()
	c.report(contrib.ArgumentInvalid, pos, "error(%q, ...): the code is reserved for the host, which produces it itself; the call would fail as tool_failed. Choose a code of your own", code)
}

func (c *checker) checkCall(k *call) {
	given := map[string]syntax.Expr{}
	meant := map[string]bool{} // keywords suggested for misspelled ones
	spread := false            // *args or **kwargs: which keywords are given is unknown
	positional := 0
	for _, arg := range k.x.Args {
		switch a := arg.(type) {
		case *syntax.UnaryExpr:
			if a.Op == syntax.STAR || a.Op == syntax.STARSTAR {
				spread = true
				continue
			}
		case *syntax.BinaryExpr:
			if kw, ok := a.X.(*syntax.Ident); ok && a.Op == syntax.EQ {
				if k.sig.Param(kw.Name) == nil {
					meant[contrib.Nearest(kw.Name, k.sig.ParamNames())] = true
					c.fail(k, kw.NamePos, "%s(...) has no keyword %s%s; its keywords are %s", k.name(), kw.Name,
						contrib.DidYouMean(kw.Name, k.sig.ParamNames()), strings.Join(k.sig.ParamNames(), ", "))
					continue
				}
				given[kw.Name] = a.Y
				continue
			}
		}
		if k.name() == "contribute" {
			start, _ := arg.Span()
			c.fail(k, start, "contribute() takes keyword arguments only: tools = [...], commands = [...], ...")
			continue
		}
		if positional >= len(k.sig.Params) {
			start, _ := arg.Span()
			c.fail(k, start, "%s(...) takes at most %d arguments; name them: %s", k.name(), len(k.sig.Params), strings.Join(k.sig.ParamNames(), ", "))
			continue
		}
		given[k.sig.Params[positional].Name] = arg
		positional++
	}
	for _, p := range k.sig.Params {
		v, ok := given[p.Name]
		if !ok {
			if p.Required && !spread && !meant[p.Name] && !k.guessed {
				c.fail(k, k.x.Lparen, "%s(...) is missing %s = ...: %s", k.name(), p.Name, p.Doc)
			}
			continue
		}
		c.checkArg(k, &p, v)
	}
	c.checkStaged(k, given)
	c.noteRemote(k, given)
}

// checkArg checks one argument against its parameter.
func (c *checker) checkArg(k *call, p *builtins.Param, v syntax.Expr) {
	pos, _ := v.Span()
	class := evident(k.fi, v, c)
	if class != "" && !accepts(p.Kind, class) {
		hint := kindExample[p.Kind]
		if s, ok := StringLiteral(v); ok && p.Callback != nil && c.lookupFunc(k.fi, s) != nil {
			hint = s + ", the function itself, without quotes"
		}
		c.fail(k, pos, "%s(%s = ...) wants %s, not %s; write %s = %s", k.name(), p.Name, p.Kind, class, p.Name, hint)
		return
	}
	if s, ok := StringLiteral(v); ok {
		c.checkString(k, p, pos, s)
	}
	if p.Kind == builtins.KindEntries {
		c.checkEntries(k, p, v)
	}
	if p.Callback != nil {
		if fn := c.callable(k.fi, v); fn != nil {
			fn.uses = append(fn.uses, p.Callback)
		}
	}
}

// checkString checks a string literal against a closed set of values and
// the constructors' own rules for it.
func (c *checker) checkString(k *call, p *builtins.Param, pos syntax.Position, s string) {
	switch {
	case k.name() == "hook" || k.name() == "raw_hook" || p.Name == "replace" || p.Name == "scope":
		// The host's staging checks these; checkStaged repeats its finding.
	case p.Name == "description" || p.Name == "display_name":
		if i, r, bad := controlChar(s); bad {
			c.report(contrib.ArgumentInvalid, pos, "%s(%s = ...) has the control character %U at character %d; a terminal would act on it. Descriptions are plain text: remove it",
				k.name(), p.Name, r, i+1)
		}
	case len(p.Values) > 0 && !slices.Contains(p.Values, s):
		c.fail(k, pos, "%s(%s = %q): want %s%s", k.name(), p.Name, s, quoteList(p.Values), contrib.DidYouMean(s, p.Values))
	case k.name() == "timer" && p.Name == "every":
		if d, err := time.ParseDuration(s); err != nil {
			c.fail(k, pos, "timer(every = %q) is not a duration; write one such as \"5s\" or \"500ms\"", s)
		} else if d < builtins.MinTimerInterval {
			c.fail(k, pos, "timer(every = %q) is shorter than the minimum %s; use %q or more", s, builtins.MinTimerInterval, builtins.MinTimerInterval.String())
		}
	}
}

// controlChar finds the first control character of s other than newline
// and tab (ESC starts terminal escape sequences): its index in runes.
func controlChar(s string) (int, rune, bool) {
	i := 0
	for _, r := range s {
		if r != '\n' && r != '\t' && (r < 0x20 || r >= 0x7f && r < 0xa0) {
			return i, r, true
		}
		i++
	}
	return 0, 0, false
}

// checkStaged reports, before the dry run and in the same words, what the
// host's staging would say about a hook's event or a point entry's replace
// and scope, so that these show even when the dry run stops earlier (the
// duplicate of a dry run that gets there is dropped).
func (c *checker) checkStaged(k *call, given map[string]syntax.Expr) {
	lit := func(name string) (string, bool) {
		v, ok := given[name]
		if !ok {
			return "", true
		}
		return StringLiteral(v)
	}
	switch name := k.name(); {
	case name == "hook" || name == "raw_hook":
		if ev, ok := lit("event"); ok && ev != "" {
			if err := contrib.CheckHookEvent(contrib.HookEvent(ev), name == "raw_hook"); err != nil {
				c.report(contrib.PointEntryInvalid, k.x.Lparen, "%v; it is left out", err)
			} else if name == "hook" {
				c.checkGuardHook(k.fi, contrib.HookEvent(ev), given["run"])
			}
		}
	case contrib.LookupPoint(contrib.PointName(name)) != nil && !contrib.LookupPoint(contrib.PointName(name)).Kind:
		p := contrib.LookupPoint(contrib.PointName(name))
		replace, ok1 := lit("replace")
		scope, ok2 := lit("scope")
		if _, hasOrder := given["order"]; !ok1 || !ok2 || hasOrder {
			return // order and non-literal values are left to the dry run
		}
		if replace == "" && p.Tiers == contrib.TierReplace && len(p.Targets) == 1 {
			replace = p.Targets[0].Name
		}
		if scope == "" {
			scope = string(contrib.ScopeWorkspace)
		}
		e := contrib.PointEntry{Point: p.Name, Replace: replace, Scope: contrib.Scope(scope)}
		if err := contrib.CheckPointEntry(e, true); err != nil {
			c.report(contrib.PointEntryInvalid, k.x.Lparen, "%s entry %v; it is left out", p.Name, err)
		}
	}
}

// checkEntries checks that a contribute() list holds entries of its kind.
func (c *checker) checkEntries(k *call, p *builtins.Param, v syntax.Expr) {
	list, ok := v.(*syntax.ListExpr)
	if !ok {
		return
	}
	for _, el := range list.List {
		x, ok := el.(*syntax.CallExpr)
		if !ok {
			continue
		}
		id, ok := x.Fn.(*syntax.Ident)
		if !ok || !predeclaredUse(k.fi, id) {
			continue
		}
		if sig := builtins.LookupSignature(id.Name); sig != nil && sig.Name != p.Entry && sig.Keyword != "" {
			c.fail(k, id.NamePos, "contribute(%s = [...]) holds a %s(...); put it in %s = [...]", p.Name, sig.Name, sig.Keyword)
		}
	}
}

// callable returns the def or lambda v names, or nil when v is not
// evidently one of the bundle's.
func (c *checker) callable(fi *fileInfo, v syntax.Expr) *function {
	switch v := v.(type) {
	case *syntax.LambdaExpr:
		return c.funcs[v]
	case *syntax.Ident:
		return c.lookupFunc(fi, v.Name)
	case *syntax.ParenExpr:
		return c.callable(fi, v.X)
	}
	return nil
}

// partCall reports whether e calls a content-part constructor (image,
// audio, resource) the plugin does not shadow.
func partCall(fi *fileInfo, e syntax.Expr) bool {
	call, ok := e.(*syntax.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fn.(*syntax.Ident)
	if !ok || id.Name != "image" && id.Name != "audio" && id.Name != "resource" {
		return false
	}
	_, loaded := fi.loads[id.Name]
	return !loaded && fi.defs[id.Name] == nil
}

// evident returns the class of value v evidently is, or "" when that
// takes running the code to know.
func evident(fi *fileInfo, v syntax.Expr, c *checker) builtins.ReturnClass {
	switch v := v.(type) {
	case *syntax.Literal:
		switch v.Token {
		case syntax.STRING:
			return builtins.ReturnString
		case syntax.INT:
			return builtins.ReturnInt
		case syntax.FLOAT:
			return builtins.ReturnFloat
		}
	case *syntax.Ident:
		switch v.Name {
		case "None", "True", "False":
			if !universalUse(fi, v) {
				return ""
			}
			if v.Name == "None" {
				return builtins.ReturnNone
			}
			return builtins.ReturnBool
		}
		if c != nil && fi.defs[v.Name] != nil {
			return builtins.ReturnFunction
		}
	case *syntax.DictExpr:
		return builtins.ReturnDict
	case *syntax.ListExpr:
		if slices.ContainsFunc(v.List, func(e syntax.Expr) bool { return partCall(fi, e) }) {
			return builtins.ReturnParts
		}
		return builtins.ReturnList
	case *syntax.CallExpr:
		if partCall(fi, v) {
			return builtins.ReturnParts
		}
	case *syntax.Comprehension:
		if v.Curly {
			return builtins.ReturnDict
		}
		return builtins.ReturnList
	case *syntax.TupleExpr:
		if slices.ContainsFunc(v.List, func(e syntax.Expr) bool { return partCall(fi, e) }) {
			return builtins.ReturnParts
		}
		return builtins.ReturnTuple
	case *syntax.LambdaExpr:
		return builtins.ReturnFunction
	case *syntax.ParenExpr:
		return evident(fi, v.X, c)
	case *syntax.BinaryExpr:
		if v.Op == syntax.PERCENT {
			if l, ok := v.X.(*syntax.Literal); ok && l.Token == syntax.STRING {
				return builtins.ReturnString
			}
		}
	}
	return ""
}

// kindExample shows a value of each kind, for the fix in a message.
var kindExample = map[builtins.ValueKind]string{
	builtins.KindString: `"..."`, builtins.KindStringOrNone: `"..."`, builtins.KindBool: "True or False", builtins.KindBoolOrNone: "True, False or None",
	builtins.KindInt: "a number such as 10", builtins.KindList: `["...", ...]`, builtins.KindEntries: "[...(...), ...]",
	builtins.KindDict: "{...}", builtins.KindDictOrNone: "{...} or None",
	builtins.KindCallable: "the name of a def, or a lambda", builtins.KindCallableOrNone: "the name of a def, or a lambda",
}

// accepts reports whether a parameter of kind k takes a value of class c.
func accepts(k builtins.ValueKind, c builtins.ReturnClass) bool {
	switch k {
	case builtins.KindString:
		return c == builtins.ReturnString
	case builtins.KindStringOrNone:
		return c == builtins.ReturnString || c == builtins.ReturnNone
	case builtins.KindBool:
		return c == builtins.ReturnBool
	case builtins.KindBoolOrNone:
		return c == builtins.ReturnBool || c == builtins.ReturnNone
	case builtins.KindInt:
		return c == builtins.ReturnInt
	case builtins.KindList, builtins.KindEntries:
		return c == builtins.ReturnList || (k == builtins.KindEntries && c == builtins.ReturnNone)
	case builtins.KindDict:
		return c == builtins.ReturnDict
	case builtins.KindDictOrNone:
		return c == builtins.ReturnDict || c == builtins.ReturnNone
	case builtins.KindCallable:
		return c == builtins.ReturnFunction
	case builtins.KindCallableOrNone:
		return c == builtins.ReturnFunction || c == builtins.ReturnNone
	}
	return true
}

// StringLiteral returns the value of a string literal, or false for any
// other expression. The language server reads literals with it too.
func StringLiteral(v syntax.Expr) (string, bool) {
	if l, ok := v.(*syntax.Literal); ok && l.Token == syntax.STRING {
		s, ok := l.Value.(string)
		return s, ok
	}
	return "", false
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// collectStatusFields records the status field names the bundle declares.
func (c *checker) collectStatusFields() {
	c.fieldsKnown = true
	for _, fi := range c.files {
		syntax.Walk(fi.f, func(n syntax.Node) bool {
			x, ok := n.(*syntax.CallExpr)
			if !ok {
				return true
			}
			if id, ok := x.Fn.(*syntax.Ident); !ok || id.Name != "status_field" || !predeclaredUse(fi, id) {
				return true
			}
			name, found := "", false
			for i, arg := range x.Args {
				if b, ok := arg.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
					if kw, _ := b.X.(*syntax.Ident); kw != nil && kw.Name == "name" {
						name, found = StringLiteral(b.Y)
					}
				} else if i == 0 {
					name, found = StringLiteral(arg)
				}
			}
			if !found {
				c.fieldsKnown = false
			}
			c.fields = append(c.fields, strings.ToLower(name))
			return true
		})
	}
}
