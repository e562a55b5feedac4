package starhost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/safefile"
)

// dataDirs returns a plugin's data directories (CC29): global
// {home}/data/plugins/<directory>, shared across workspaces, and project
// <workspace>/.crystal/data/plugins/<directory>. The paths are keyed by the
// plugin's directory name, so a data directory belongs to the plugin id
// that was first given it (claim): another id whose directory has the same
// name gets neither directory and a DataDirRefused diagnostic saying whose
// they are and how to resolve it. The host tries to create both and does
// not report failure: a plugin creates them if missing (ctx.data's write
// does). They are not the install directory and not secret storage.
func (h *Host) dataDirs(plugin, directory string, source contrib.Source) (global, project string, refused *contrib.Diagnostic) {
	switch directory {
	case "", ".", "..", string(filepath.Separator):
		directory = plugin
	}
	global, project = h.paths().Data(directory)
	globalOwners, projectOwners := h.paths().DataOwners()
	if link := firstLink(h.paths().WorkspaceDir(), project); link != "" {
		return "", "", linkRefused(plugin, project, link)
	}
	scopes := []struct {
		scope, dir, owners string
		owned              bool
	}{{scope: "global", dir: global, owners: globalOwners}, {scope: "project", dir: project, owners: projectOwners}}
	for i := range scopes {
		// Both are checked before either is claimed: a refused plugin
		// claims nothing.
		s := &scopes[i]
		owned, d := checkDataOwner(plugin, directory, source, s.scope, s.dir, s.owners)
		if d != nil {
			return "", "", d
		}
		s.owned = owned
	}
	for _, s := range scopes {
		if s.owned {
			continue // recorded for plugin already: no lock, no write
		}
		if d := claimDataDir(plugin, directory, source, s.scope, s.dir, s.owners); d != nil {
			return "", "", d
		}
	}
	_ = os.MkdirAll(global, 0o755)
	_ = os.MkdirAll(project, 0o755)
	return global, project, nil
}

// maxOwnersFile bounds the owner records read (one line per directory).
const maxOwnersFile = 1 << 20

// dataOwners is the owner record file of one scope: which plugin id each
// data directory (by directory name) belongs to.
type dataOwners struct {
	Owners map[string]string `json:"owners"`
}

// readDataOwners reads an owner record file; a missing file is no records.
// Anything but a regular file, or a file that does not parse strictly, is
// an error: the records are then unreadable and never overwritten.
func readDataOwners(path string) (dataOwners, error) {
	var o dataOwners
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		// No data root, so no data directory and nothing recorded.
		return o, nil
	case err != nil:
		return o, err
	case !st.Mode().IsRegular():
		return o, errors.New("it is not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return o, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxOwnersFile+1))
	if err != nil {
		return o, err
	}
	if len(data) > maxOwnersFile {
		return o, fmt.Errorf("it is larger than %d bytes", maxOwnersFile)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return o, err
	}
	return o, nil
}

// ownersCache keeps the owner records checkDataOwner reads on every
// activation (reading and decoding the file costs 40-80 µs; an Lstat, a
// few), by path, with the file's identity, modification time and size when
// they were read. Records are replaced atomically (a new file), so a file
// that is the same file with the same time and size holds the same
// records; any change is read afresh. It is safe for concurrent use.
type ownersCache struct {
	mu     sync.Mutex
	byPath map[string]cachedOwners
}

type cachedOwners struct {
	st fs.FileInfo
	o  dataOwners
}

// maxCachedOwners bounds the files cached (two per workspace served).
const maxCachedOwners = 256

// ownerRecords is the process's cache: the records are files, shared by
// every host that reads them.
var ownerRecords ownersCache

// read is readDataOwners through the cache. The records returned may be
// shared: callers must not modify them (claimDataDir, which writes,
// reads the file itself under the lock).
func (c *ownersCache) read(path string) (dataOwners, error) {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return readDataOwners(path) // missing, or refused: nothing to keep
	}
	c.mu.Lock()
	e, ok := c.byPath[path]
	c.mu.Unlock()
	if ok && os.SameFile(e.st, st) && e.st.ModTime().Equal(st.ModTime()) && e.st.Size() == st.Size() {
		return e.o, nil
	}
	// Read after the Lstat: a file replaced in between is cached under
	// the older identity, which the next call sees as a change.
	o, err := readDataOwners(path)
	if err != nil {
		return o, err
	}
	c.mu.Lock()
	if c.byPath == nil || len(c.byPath) >= maxCachedOwners {
		c.byPath = map[string]cachedOwners{}
	}
	c.byPath[path] = cachedOwners{st: st, o: o}
	c.mu.Unlock()
	return o, nil
}

// checkDataOwner reads the records without a lock (they are replaced
// atomically; ownerRecords keeps them while the file is unchanged) and
// refuses a directory recorded for another id; owned reports a record for
// plugin itself. The claim re-reads under the lock.
func checkDataOwner(plugin, directory string, source contrib.Source, scope, dir, owners string) (owned bool, refused *contrib.Diagnostic) {
	o, err := ownerRecords.read(owners)
	if err != nil {
		return false, ownersUnreadable(plugin, scope, owners, err)
	}
	if d := refuseOwned(plugin, directory, scope, dir, owners, o); d != nil {
		return false, d
	}
	if o.Owners[directory] == plugin {
		return true, nil
	}
	return false, refuseUnrecorded(plugin, directory, source, scope, dir, owners)
}

// refuseUnrecorded refuses dir, which no record names, when it holds data
// plugin may not claim (claimsUnrecorded).
func refuseUnrecorded(plugin, directory string, source contrib.Source, scope, dir, owners string) *contrib.Diagnostic {
	if claimsUnrecorded(source, scope) || !holdsData(dir) {
		return nil
	}
	kind := "a development plugin"
	if source == contrib.SourceProject {
		kind = "a workspace plugin and global data is shared across workspaces"
	}
	d := contrib.Diag(contrib.DataDirRefused, plugin, contrib.Pos{},
		"the %s data directory %s holds data no plugin is recorded as owning (written before owners were recorded in %s); %s is %s, so it does not claim such data and gets no data directory (ctx.data is None)",
		scope, dir, owners, plugin, kind).
		WithRemedy("if the data is %s's, record it by adding \"%s\": \"%s\" under \"owners\" in %s, or let the installed plugin it belongs to run once; otherwise remove or rename %s",
			plugin, directory, plugin, owners, dir)
	return &d
}

// refuseOwned refuses dir when its record names another plugin id and the
// directory still exists (a record whose directory is gone is stale: the
// operator removed or renamed the data, and the next plugin claims afresh).
func refuseOwned(plugin, directory, scope, dir, owners string, o dataOwners) *contrib.Diagnostic {
	owner := o.Owners[directory]
	if owner == "" || owner == plugin {
		return nil
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	d := contrib.Diag(contrib.DataDirRefused, plugin, contrib.Pos{},
		"the %s data directory %s belongs to plugin %s (recorded in %s), whose plugin directory has the same name %q; %s gets no data directory (ctx.data is None)",
		scope, dir, owner, owners, directory, plugin).
		WithRemedy("if %s should have this data, remove or rename %s; otherwise rename one of the two plugin directories", plugin, dir)
	return &d
}

// claimsUnrecorded reports whether a plugin from source may claim a
// directory of scope that already holds data without a record (written
// before owners were recorded). A development plugin never does: it is
// eligible without a grant, so it could otherwise take an installed
// plugin's data just by having the same directory name. A workspace plugin
// does not claim global data, which is shared across workspaces and so most
// likely an installed plugin's; a cloned repository's plugin would
// otherwise reach it once granted.
func claimsUnrecorded(source contrib.Source, scope string) bool {
	switch source {
	case contrib.SourceHome, contrib.SourceBuiltin:
		return true
	case contrib.SourceProject:
		return scope == "project"
	}
	return false
}

// claimDataDir records plugin as the owner of dir when no record names one,
// under the records' lock, and writes the records atomically; unreadable
// records are never overwritten. Data without a record is claimed only as
// claimsUnrecorded allows.
func claimDataDir(plugin, directory string, source contrib.Source, scope, dir, owners string) (refused *contrib.Diagnostic) {
	if os.MkdirAll(filepath.Dir(owners), 0o755) != nil {
		// The scope's data root cannot exist (a file is in its place): no
		// data can be there to take, and the plugin's own writes fail the
		// same way (CC29: not reported).
		return nil
	}
	unlock, err := safefile.Lock(owners + ".lock")
	if err != nil {
		return ownersUnreadable(plugin, scope, owners, err)
	}
	defer func() {
		if err := unlock(); err != nil && refused == nil {
			refused = ownersUnreadable(plugin, scope, owners, err)
		}
	}()
	o, err := readDataOwners(owners)
	if err != nil {
		return ownersUnreadable(plugin, scope, owners, err)
	}
	if d := refuseOwned(plugin, directory, scope, dir, owners, o); d != nil {
		return d
	}
	if o.Owners[directory] == plugin {
		return nil
	}
	if d := refuseUnrecorded(plugin, directory, source, scope, dir, owners); d != nil {
		return d
	}
	if o.Owners == nil {
		o.Owners = map[string]string{}
	}
	o.Owners[directory] = plugin
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return ownersUnreadable(plugin, scope, owners, err)
	}
	if err := safefile.WriteFile(owners, append(data, '\n'), 0o644); err != nil {
		return ownersUnreadable(plugin, scope, owners, err)
	}
	// Under the lock: a record whose directory is missing is stale, so the
	// directory must exist before the next claimer reads the record.
	_ = os.MkdirAll(dir, 0o755)
	return nil
}

// firstLink returns the first path from root down to dir (root included)
// that is a symbolic link, or "". The workspace's .crystal directory is
// the repository's: a link planted there — .crystal itself, data, plugins
// or a plugin's data directory — would make ctx.data (an os.Root opened at
// the link's target) read and write wherever it points.
func firstLink(root, dir string) string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	p := root
	for _, el := range append([]string{"."}, strings.Split(rel, string(filepath.Separator))...) {
		p = filepath.Join(p, el)
		if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return p
		}
	}
	return ""
}

// linkRefused refuses the data directories when the project one is reached
// through a symbolic link (firstLink).
func linkRefused(plugin, project, link string) *contrib.Diagnostic {
	d := contrib.Diag(contrib.DataDirRefused, plugin, contrib.Pos{},
		"the project data directory %s is reached through the symbolic link %s, which the workspace's repository could point anywhere; %s gets no data directory (ctx.data is None)",
		project, link, plugin).
		WithRemedy("replace the link %s with a real directory", link)
	return &d
}

// holdsData reports whether dir exists with at least one entry.
func holdsData(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) > 0
}

// ownersUnreadable refuses the data directories while the owner records of
// scope cannot be read or written: without them nobody can tell whose the
// data is.
func ownersUnreadable(plugin, scope, owners string, err error) *contrib.Diagnostic {
	d := contrib.Diag(contrib.DataDirRefused, plugin, contrib.Pos{},
		"the owner records of the %s data directories, %s, cannot be read or written: %v; %s gets no data directory (ctx.data is None) and the file is never overwritten",
		scope, owners, err, plugin).
		WithRemedy("fix or remove %s by hand", owners)
	return &d
}
