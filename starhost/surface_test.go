package starhost_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// The host surface speaks starhost's own types: every parameter and result
// of these methods, and every field reachable from them, is a type of
// package starhost or of the standard library, never one of the internal
// packages (contrib, lifecycle, builtins, statusline, trust), even behind
// an alias. A type from there would show no fields in go doc and tie the
// embedder to a package it should not import.
func TestHostSurfaceSpeaksOwnTypes(t *testing.T) {
	// Every exported method of the types an embedder holds.
	holders := []reflect.Type{reflect.TypeOf(&starhost.Host{}), reflect.TypeOf(&starhost.Operator{}),
		reflect.TypeOf(&starhost.Session{}), reflect.TypeOf(&starhost.ToolSnapshot{}), reflect.TypeOf(starhost.ToolResult{})}
	seen := map[reflect.Type]bool{}
	var check func(where string, ty reflect.Type)
	check = func(where string, ty reflect.Type) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		if p := ty.PkgPath(); p != "" && strings.Contains(strings.Split(p, "/")[0], ".") && !strings.HasSuffix(p, "/starhost") {
			t.Errorf("%s: %s is from %s", where, ty, p)
			return
		}
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			check(where, ty.Elem())
		case reflect.Map:
			check(where, ty.Key())
			check(where, ty.Elem())
		case reflect.Func:
			for i := range ty.NumIn() {
				check(where, ty.In(i))
			}
			for i := range ty.NumOut() {
				check(where, ty.Out(i))
			}
		case reflect.Struct:
			for i := range ty.NumField() {
				if f := ty.Field(i); f.IsExported() {
					check(where+"."+f.Name, f.Type)
				}
			}
		}
	}
	for _, recv := range holders {
		for i := range recv.NumMethod() {
			m := recv.Method(i)
			ft := m.Type
			for i := 1; i < ft.NumIn(); i++ { // past the receiver
				check(recv.String()+"."+m.Name, ft.In(i))
			}
			for i := range ft.NumOut() {
				check(recv.String()+"."+m.Name, ft.Out(i))
			}
		}
	}
	for _, v := range []any{starhost.Note{}, starhost.Event{}, starhost.PluginInfo{}, starhost.Change{}} {
		check("type", reflect.TypeOf(v))
	}
}
