package lifecycle

import (
	"github.com/BurntSushi/toml"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/tomlpos"
)

// Root is one place plugins are discovered. Roots are given in priority
// order: project, dev, home, built-in.
type Root struct {
	Dir    string
	Source contrib.Source
}

// Candidate is one discovered plugin directory. Discovery reads files only
// (AT4): no plugin code runs.
type Candidate struct {
	Dir      string // absolute
	Name     string // directory name
	Display  string // directory as shown in positions (relative when possible)
	Source   contrib.Source
	Rank     int // load order
	Manifest *Manifest
	// Diagnostics are the manifest's problems and overlay notes.
	Diagnostics []contrib.Diagnostic
	// Shadowed is set when a higher root holds the same id (the candidate
	// is listed but never activated).
	Shadowed bool
	// KnownID is the id an earlier, valid manifest of this directory gave;
	// it keeps the plugin's identity while its manifest is broken.
	KnownID string
	// namedID is the valid id a manifest that has other problems names: the
	// listing and the diagnostics then agree on who the plugin is.
	namedID string

	manifestData []byte // the plugin.toml bytes Manifest was parsed from
	// listed is set when Dir came from its root's listing as a directory,
	// not a link: reading the bundle need not Lstat it again.
	listed bool
	// top is the listing of Dir that found the entry file: reading the
	// bundle right after discovery (Start, Rescan) takes it instead of
	// listing the directory again.
	top []os.DirEntry
}

// ID returns the manifest id or, when the manifest is unusable, the id it
// last had, else the id it names, else the directory name.
func (c *Candidate) ID() string {
	switch {
	case c.Manifest != nil:
		return c.Manifest.ID
	case c.KnownID != "":
		return c.KnownID
	case c.namedID != "":
		return c.namedID
	}
	return c.Name
}

// Discover lists the plugin directories of roots in load order: roots by
// priority, then in the order given, then by directory name (a dev root may
// be a plugin directory itself or a directory of them). A project directory
// replaces a home plugin with the same directory name; the same id in two
// roots keeps the higher one and gives the lower a DuplicatePluginId
// diagnostic. display turns a directory into the form used in positions; it
// is called on all cores at once (a cwd-relative display costs a Getwd, which
// one goroutine paid for every plugin of a large root).
func Discover(roots []Root, display func(string) string) []*Candidate {
	var out []*Candidate
	taken := map[string]bool{} // directory names of project plugins
	for _, r := range roots {
		dirs, listed := pluginDirs(r)
		for _, dir := range dirs {
			name := filepath.Base(dir)
			if r.Source == contrib.SourceHome && taken[name] {
				continue // overlay: the project directory replaces it wholesale
			}
			if r.Source == contrib.SourceProject {
				taken[name] = true
			}
			out = append(out, &Candidate{Dir: dir, Name: name, Source: r.Source, Rank: len(out), listed: listed})
		}
	}
	loadAll(out, display) // reads only (AT4), on all cores
	owner := map[string]*Candidate{}
	for _, c := range out {
		if c.Manifest == nil {
			continue
		}
		if first, dup := owner[c.Manifest.ID]; dup {
			c.Shadowed = true
			c.Diagnostics = append(c.Diagnostics, contrib.Diag(contrib.DuplicatePluginID, c.Manifest.ID,
				contrib.Pos{File: c.Display + "/" + ManifestName},
				"plugin id %s is also in %s, which has priority; this copy is skipped", c.Manifest.ID, first.Display))
			continue
		}
		owner[c.Manifest.ID] = c
	}
	return out
}

// Find discovers the plugins of roots and returns the one that answers for
// id, or nil: the copy no higher root shadows, preferring a directory whose
// manifest is usable over one that only names the id (a broken manifest
// answers for the id it last had, or its directory name). Operations on one
// plugin by id (grant, enable, remove) start here.
func Find(roots []Root, display func(string) string, id string) *Candidate {
	var named *Candidate
	for _, c := range Discover(roots, display) {
		switch {
		case c.ID() != id || c.Shadowed:
		case c.Manifest != nil:
			return c
		case named == nil:
			named = c
		}
	}
	return named
}

// load reads the manifest and checks the entry file exists.
func (c *Candidate) load() {
	file := c.Display + "/" + ManifestName
	data, err := readCapped(filepath.Join(c.Dir, ManifestName), maxBundleBytes)
	if err != nil {
		c.Diagnostics = append(c.Diagnostics, contrib.Diag(contrib.ManifestMissing, c.Name, contrib.Pos{File: file},
			"cannot read %s: %v", ManifestName, unwrapPath(err)).WithRemedy("add a plugin.toml with id and version"))
		return
	}
	c.manifestData = data
	m, diags := ParseManifest(file, data, c.Name)
	c.Diagnostics = append(c.Diagnostics, diags...)
	if m == nil {
		var named struct {
			ID string `toml:"id"`
		}
		if _, err := toml.Decode(string(data), &named); err == nil && CheckID(named.ID) == nil {
			c.namedID = named.ID
		}
		return
	}
	if !c.entryExists(m.Entry) {
		line, col := tomlpos.Position(data, []string{"entry"})
		c.Diagnostics = append(c.Diagnostics, contrib.Diag(contrib.EntryMissing, m.ID, contrib.Pos{File: file, Line: line, Col: col},
			"entry file %s does not exist", m.Entry))
		return
	}
	c.Manifest = m
}

// entryExists reports whether the entry file exists and is not a
// directory. A top-level entry is looked up in a listing of the plugin
// directory, which the bundle snapshot then reuses (one system call per
// plugin fewer than a stat and a second listing); a nested entry, an entry
// that is a link and an unreadable directory take the stat as before.
func (c *Candidate) entryExists(entry string) bool {
	if !strings.Contains(entry, "/") {
		if top, err := os.ReadDir(c.Dir); err == nil {
			c.top = top
			i, found := slices.BinarySearchFunc(top, entry, func(e os.DirEntry, name string) int { return strings.Compare(e.Name(), name) })
			if !found {
				return false
			}
			if t := top[i].Type(); t&fs.ModeSymlink == 0 {
				return !t.IsDir()
			}
		}
	}
	st, err := os.Stat(filepath.Join(c.Dir, filepath.FromSlash(entry)))
	return err == nil && !st.IsDir()
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// pluginDirs lists the plugin directories of one root, sorted by name.
// listed is true when they come from the root's listing, where a link is
// not a directory; a dev root that is a plugin itself may be a link.
func pluginDirs(r Root) (dirs []string, listed bool) {
	dir, err := filepath.Abs(r.Dir)
	if err != nil {
		return nil, false
	}
	if r.Source == contrib.SourceDev && isFile(filepath.Join(dir, ManifestName)) {
		return []string{dir}, false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Name()[0] != '.' {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(out)
	return out, true
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
