// Package schema infers JSON Schema 2020-12 documents from Go types.
//
// It serves two callers: the server library, which derives an action's input
// and output schemas from the handler's Go types once, at registration, and
// the generator of the repository's schemas/ folder, which describes the
// protocol's own wire types. Both read the same struct tags, one tag per
// keyword, so a constraint is written once beside the field it constrains:
//
//	type AddToCart struct {
//		SKU string `json:"sku" description:"the SKU to add" pattern:"^[A-Z0-9-]+$"`
//		Qty int    `json:"qty,omitempty" minimum:"1" maximum:"10" default:"1"`
//	}
//
// The tags are title, description, pattern, format, minimum, maximum, minLength,
// maxLength, minItems, maxItems, enum (comma-separated), default and required
// ("true" or "false"). A field is required unless its json tag says omitempty
// or omitzero, it is a pointer, or required:"false" says otherwise.
//
// Property names, embedding and skipped fields follow encoding/json, so the
// schema describes exactly what the JSON decoder accepts.
package schema
