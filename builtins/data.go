package builtins

import (
	"fmt"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// DataSource is implemented by Services that give plugins with the data
// capability their two data directories (CC29, CC30).
type DataSource interface {
	// DataDirs returns the global ({home}/data/plugins/<directory>) and
	// project (<workspace>/.crystal/data/plugins/<directory>) directories
	// of a plugin (source is the root it came from), after trying to
	// create both; failures to create are not reported. A directory that
	// belongs to another plugin id is refused: refused says why and how to
	// resolve it, and the plugin gets neither directory.
	DataDirs(plugin, directory string, source contrib.Source) (global, project string, refused *contrib.Diagnostic)
}

// dataGrant is what the host answered for a generation's data directories.
type dataGrant struct {
	dirs    *[2]*dataDir
	refused *contrib.Diagnostic
}

// dataState asks the host once per generation, or returns nil without the
// data capability (or a host that offers none).
func (inst *instance) dataState() *dataGrant {
	src, ok := inst.req.Services.(DataSource)
	if !ok || !inst.hasCapability("data") || inst.activating {
		return nil
	}
	return featureState(inst, "data", func() *dataGrant {
		global, project, refused := src.DataDirs(inst.req.Plugin, inst.req.Directory, inst.req.Source)
		if refused != nil {
			return &dataGrant{refused: refused}
		}
		return &dataGrant{dirs: &[2]*dataDir{{scope: "global", dir: global}, {scope: "project", dir: project}}}
	})
}

// dataDirs returns the generation's two data directories, or nil without
// the data capability, or when the host refused them (another plugin id
// owns them).
func (inst *instance) dataDirs() *[2]*dataDir {
	if g := inst.dataState(); g != nil {
		return g.dirs
	}
	return nil
}

// dataRefusal is the failure of the attach_data_dirs stage when the host
// refused the directories: a diagnostic of the plugin, which stays active.
type dataRefusal struct{ d contrib.Diagnostic }

func (e *dataRefusal) Error() string                  { return e.d.String() }
func (e *dataRefusal) Diagnostic() contrib.Diagnostic { return e.d }

// dataCtx is ctx.data, present only with the data capability; None when
// the host refused the directories (another plugin id owns them), so a
// plugin can tell with ctx.data == None.
func dataCtx(c *callCtx) starlark.Value {
	g := c.inst.dataState()
	switch {
	case g == nil:
		return nil
	case g.refused != nil:
		return starlark.None
	}
	dirs := g.dirs
	// "global" is a reserved word of Starlark (ctx.data.global does not
	// parse), hence global_dir and, for symmetry, project_dir.
	return record("data", starlark.StringDict{"global_dir": dirs[0], "project_dir": dirs[1]})
}

// createDataDirs is CC29: the host creates both directories at the
// attach_data_dirs stage, callback or not. A refusal is the stage's
// failure, so it is a diagnostic of the plugin once per generation.
func createDataDirs(inst *instance) error {
	if g := inst.dataState(); g != nil && g.refused != nil {
		return &dataRefusal{d: *g.refused}
	}
	return nil
}

// prepareDataDirs runs attach_data_dirs(ctx, global, project) only with the
// data capability.
func prepareDataDirs(inst *instance, _ *callCtx) ([]starlark.Value, bool) {
	dirs := inst.dataDirs()
	if dirs == nil {
		return nil, false
	}
	return []starlark.Value{dirs[0], dirs[1]}, true
}

// dataDir is one data directory as Starlark sees it: confined read, write
// (atomic), list, exists and remove with relative paths. It never shows the
// directory's absolute path.
type dataDir struct {
	scope string // "global" or "project"
	dir   string
}

var _ starlark.HasAttrs = (*dataDir)(nil)

func (d *dataDir) String() string        { return fmt.Sprintf("<data %s>", d.scope) }
func (d *dataDir) Type() string          { return "data_dir" }
func (d *dataDir) Freeze()               {}
func (d *dataDir) Truth() starlark.Bool  { return starlark.True }
func (d *dataDir) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: data_dir") }

// AttrNames lists the methods and scope.
func (d *dataDir) AttrNames() []string {
	return []string{"exists", "list", "read", "remove", "scope", "write"}
}

// Attr returns one method (or scope).
func (d *dataDir) Attr(name string) (starlark.Value, error) {
	fs := confinedDir{dir: d.dir, scope: d.scope}
	method := func(fn func(args starlark.Tuple, kwargs []starlark.Tuple, b *starlark.Builtin) (starlark.Value, error)) starlark.Value {
		return starlark.NewBuiltin(d.scope+"_dir."+name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return fn(args, kwargs, b)
		})
	}
	onePath := func(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (string, error) {
		var p string
		err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &p)
		return p, err
	}
	switch name {
	case "scope":
		return starlark.String(d.scope), nil
	case "read":
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple, b *starlark.Builtin) (starlark.Value, error) {
			p, err := onePath(b, args, kwargs)
			if err != nil {
				return nil, err
			}
			data, err := fs.read(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", b.Name(), err)
			}
			return starlark.String(data), nil
		}), nil
	case "write":
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple, b *starlark.Builtin) (starlark.Value, error) {
			var p string
			var text starlark.Value
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &p, &text); err != nil {
				return nil, err
			}
			var data []byte
			switch t := text.(type) {
			case starlark.String:
				data = []byte(t)
			case starlark.Bytes:
				data = []byte(t)
			default:
				return nil, fmt.Errorf("%s: text must be a string or bytes, not %s", b.Name(), text.Type())
			}
			if err := fs.write(p, data); err != nil {
				return nil, fmt.Errorf("%s: %v", b.Name(), err)
			}
			return starlark.None, nil
		}), nil
	case "list":
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple, b *starlark.Builtin) (starlark.Value, error) {
			p := ""
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0, &p); err != nil {
				return nil, err
			}
			names, err := fs.list(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", b.Name(), err)
			}
			return FromJSON(names), nil
		}), nil
	case "exists":
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple, b *starlark.Builtin) (starlark.Value, error) {
			p, err := onePath(b, args, kwargs)
			if err != nil {
				return nil, err
			}
			ok, err := fs.exists(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", b.Name(), err)
			}
			return starlark.Bool(ok), nil
		}), nil
	case "remove":
		return method(func(args starlark.Tuple, kwargs []starlark.Tuple, b *starlark.Builtin) (starlark.Value, error) {
			p, err := onePath(b, args, kwargs)
			if err != nil {
				return nil, err
			}
			if err := fs.remove(p); err != nil {
				return nil, fmt.Errorf("%s: %v", b.Name(), err)
			}
			return starlark.None, nil
		}), nil
	}
	return nil, nil
}
