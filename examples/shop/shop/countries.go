package shop

import "github.com/affordances-go/affordances/site/safetext"

// Country is one country the checkout's form offers, by its ISO 3166
// code (what an address keeps) and its name in English.
type Country struct {
	Code, Name string
}

// countries are those the checkout's list offers. An agent may send any
// two-letter code (the schema's pattern); the list shows a code it does
// not know as the code itself.
var countries = []Country{
	{"AT", "Austria"}, {"BE", "Belgium"}, {"CH", "Switzerland"}, {"CZ", "Czechia"}, {"DE", "Germany"},
	{"DK", "Denmark"}, {"ES", "Spain"}, {"FI", "Finland"}, {"FR", "France"}, {"GB", "United Kingdom"},
	{"IE", "Ireland"}, {"IT", "Italy"}, {"LU", "Luxembourg"}, {"NL", "Netherlands"}, {"NO", "Norway"},
	{"PL", "Poland"}, {"PT", "Portugal"}, {"SE", "Sweden"}, {"US", "United States"},
}

// countryName is the name of a country code, the code itself when the
// list does not have it.
func countryName(code string) string {
	for _, c := range countries {
		if c.Code == code {
			return c.Name
		}
	}
	return code
}

// countryChoices are the countries of the checkout's list, with code
// first when the list lacks it (an address saved by an agent).
func countryChoices(code string) []Country {
	if code == "" || countryName(code) != code {
		return countries
	}
	return append([]Country{{code, safetext.ShowAsData(code)}}, countries...)
}
