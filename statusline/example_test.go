package statusline_test

import (
	"fmt"

	"github.com/crystal-star/crystal-star/statusline"
)

func Example() {
	board := statusline.NewBoard([]statusline.BuiltinField{{Name: "model", Description: "Session model"}})

	// contribute(status_fields=[status_field(name="Queue", ...)])
	accepted, _ := board.Declare("acme.review", []statusline.FieldDecl{{Name: "Queue", Description: "Open reviews"}})
	names := []string{accepted[0].Name}

	// attach_status(ctx, status): the generation's sink.
	status := board.NewSink("acme.review", "1", names, func(note string) { fmt.Println("note:", note) })
	status.Set("queue", "\x1b[32m3 open\x1b[0m")
	status.Set("branch", "main")

	// status_line = ["model", "queue"], then /statusline add ...
	line := statusline.Line{Names: []string{"model", "queue"}}
	fmt.Println(board.Render(line, func(string) string { return "gpt-5" }))

	// A reload retires the sink; the new generation starts empty.
	status.Retire()
	fmt.Printf("%q\n", board.Render(line, nil))
	// Output:
	// note: status field "branch" is not registered by plugin acme.review; ignored
	// gpt-5 · 3 open
	// ""
}
