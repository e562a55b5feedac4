package builtins

import (
	"fmt"

	"go.starlark.net/starlark"
)

// DataSource is implemented by Services that give plugins with the data
// capability their two data directories (CC29, CC30).
type DataSource interface {
	// DataDirs returns the global ({home}/data/plugins/<directory>) and
	// project (<workspace>/.crystal/data/plugins/<directory>) directories
	// of a plugin, after trying to create both; failures are not reported.
	DataDirs(plugin, directory string) (global, project string)
}

// dataDirs returns the generation's two data directories, or nil without
// the data capability (or a host that offers none). The host is asked
// once per generation.
func (inst *instance) dataDirs() *[2]*dataDir {
	src, ok := inst.req.Services.(DataSource)
	if !ok || !inst.hasCapability("data") || inst.activating {
		return nil
	}
	return featureState(inst, "data", func() *[2]*dataDir {
		global, project := src.DataDirs(inst.req.Plugin, inst.req.Directory)
		return &[2]*dataDir{{scope: "global", dir: global}, {scope: "project", dir: project}}
	})
}

// dataCtx is ctx.data, present only with the data capability.
func dataCtx(c *callCtx) starlark.Value {
	dirs := c.inst.dataDirs()
	if dirs == nil {
		return nil
	}
	// "global" is a reserved word of Starlark (ctx.data.global does not
	// parse), hence global_dir and, for symmetry, project_dir.
	return record("data", starlark.StringDict{"global_dir": dirs[0], "project_dir": dirs[1]})
}

// createDataDirs is CC29: the host creates both directories at the
// attach_data_dirs stage, callback or not.
func createDataDirs(inst *instance) { inst.dataDirs() }

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
