package mcpgo_test

import (
	"fmt"
	"log"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	"golang.org/x/text/language"
)

// On mcp-go too, a declined run's Outcome is headed as not completed, in
// the person's language, apart from the sentence for the model.
func ExampleFlowRound_Outcome() {
	round := &mcpgo.FlowRound{Status: mcpform.FlowDeclined, Language: language.German}
	res, err := round.Outcome(&mcpform.Outcome{Text: "Signup not completed: the person declined."})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range res.Content {
		fmt.Println(c.(mcp.TextContent).Text)
	}
	fmt.Println(res.Meta.AdditionalFields["io.modelcontextprotocol/contentLanguage"])
	// Output:
	// Nicht abgeschlossen
	// Signup not completed: the person declined.
	// de
}
