// Command genplugins writes n generated one-tool plugins into a directory
// (scale.sh uses it): go run ./internal/scalegen/genplugins -n 1000 DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/crystal-star/crystal-star/internal/scalegen"
)

func main() {
	n := flag.Int("n", 1000, "number of plugins")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genplugins -n N DIR")
		os.Exit(2)
	}
	if err := scalegen.Write(flag.Arg(0), *n); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
