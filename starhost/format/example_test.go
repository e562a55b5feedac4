package format_test

import (
	"fmt"

	"github.com/crystal-star/crystal-star/starhost/format"
)

// Source formats one .star file's source the way `crystal-star fmt` does.
func ExampleSource() {
	out, err := format.Source("plugin.star", []byte("def run(ctx,args):\n  return args['text']\n"))
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))
	// Output:
	// def run(ctx, args):
	//     return args["text"]
}
