package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/plugintest"
)

var testCmd = command{name: "test", args: "[DIR...]",
	summary: "run plugins' testdata/*.txtar scenarios (docs/testing.md)",
	flags: []flagSpec{{name: "run", value: "REGEX", help: "run only the scenarios whose name matches"},
		{name: "v", help: "show every command of every scenario"},
		{name: "update", help: "rewrite the files that cmp compares against"}},
	example: "test plugins/review -run review -v", run: runTest}

// runTest runs `crystal-star test [DIR...] [-run REGEX] [-v] [-update]`:
// flags take one dash or two. Exit 0 when every scenario passed, 1 when
// one failed or a directory has none, 2 for a usage error.
func runTest(e *env, args []string) error {
	opts := plugintest.RunOptions{Out: e.stdout}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-"):
			opts.Dirs = append(opts.Dirs, a)
		case name == "v" && !hasValue:
			opts.Verbose = true
		case name == "update" && !hasValue:
			opts.Update = true
		case name == "run":
			if !hasValue {
				if i+1 >= len(args) {
					return usagef("-run needs a regular expression")
				}
				i++
				value = args[i]
			}
			re, err := regexp.Compile(value)
			if err != nil {
				return usagef("-run: %v", err)
			}
			opts.Run = re
		default:
			return usagef("unknown flag %s (test takes -run REGEX, -v, -update)", a)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	opts.Executable = exe
	if code := plugintest.RunScenarios(opts); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// devDirs returns the development plugins of $CRYSTAL_DEV (set by
// crystal-star test for every command a scenario runs) and of --dev, each
// directory once.
func devDirs(flags []string) []string {
	var dirs []string
	seen := map[string]bool{}
	for _, d := range append(filepath.SplitList(os.Getenv(plugintest.EnvDev)), flags...) {
		abs, err := filepath.Abs(d)
		if d == "" || err == nil && seen[abs] {
			continue
		}
		seen[abs] = true
		dirs = append(dirs, d)
	}
	return dirs
}

// clockFromEnv returns a manual clock when $CRYSTAL_CLOCK is "manual", else
// nil (the real clock).
func clockFromEnv() *starhost.ManualClock {
	if os.Getenv(plugintest.EnvClock) == "manual" {
		return starhost.NewManualClock()
	}
	return nil
}

// advance runs /advance DURATION: the manual clock moves and the timer
// ticks due run before the console reads on.
func (c *console) advance(rest string) {
	d, err := time.ParseDuration(rest)
	if err != nil || d <= 0 {
		c.printf("usage: /advance DURATION (such as 5s)")
		return
	}
	if c.e.clock == nil {
		c.printf("/advance: plugin timers follow the real clock; set %s=manual (crystal-star test does)", plugintest.EnvClock)
		return
	}
	c.printf("advanced %s: %d timer runs", d, c.e.clock.Advance(d))
}
