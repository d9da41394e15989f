package mcpform_test

import (
	"fmt"
	"log"

	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/language"
)

// A handler ends a run with an Outcome: a heading and a short summary for
// the person, apart from the sentence for the model. A declined run is
// headed as not completed, in the person's language.
func ExampleFlowRound_Outcome() {
	show := func(round *mcpform.FlowRound, o *mcpform.Outcome) {
		res, err := round.Outcome(o)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("for the person: %q\n", res.Content[0].(*mcp.TextContent).Text)
		fmt.Printf("for the model:  %q\n", res.Content[1].(*mcp.TextContent).Text)
	}
	created := &mcpform.FlowRound{Status: mcpform.FlowDone, Language: language.English}
	show(created, &mcpform.Outcome{
		Heading: "Account created",
		Summary: []string{"Email: ada@example.com", "Plan: Team", "Seats: 12"},
		Text:    "Signup complete: created ada@example.com on the Team plan, 12 seats.",
	})
	declined := &mcpform.FlowRound{Status: mcpform.FlowDeclined, Language: language.French}
	show(declined, &mcpform.Outcome{Text: "Signup not completed: the person declined. Nothing was created."})
	// Output:
	// for the person: "Account created\nEmail: ada@example.com\nPlan: Team\nSeats: 12"
	// for the model:  "Signup complete: created ada@example.com on the Team plan, 12 seats."
	// for the person: "Non abouti"
	// for the model:  "Signup not completed: the person declined. Nothing was created."
}
