package safetext_test

import (
	"fmt"

	"github.com/affordances-go/affordances/site/safetext"
)

// Examples of the package.

// ShowAsData writes what could make a person misread a value an agent
// sent as code points: here a look-alike quote and a zero-width space.
func ExampleShowAsData() {
	fmt.Println(safetext.ShowAsData("Demo Shopper\u02ba, street \u02ba12 Rue\u200b"))
	fmt.Println(safetext.Quote("Demo Shopper\u02ba"))
	// Output:
	// Demo Shopper⟨U+02BA⟩, street ⟨U+02BA⟩12 Rue⟨U+200B⟩
	// "Demo Shopper⟨U+02BA⟩"
}
