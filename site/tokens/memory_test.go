package tokens_test

import (
	"testing"

	"github.com/affordances-go/affordances/site/tokens"
	"github.com/affordances-go/affordances/site/tokens/tokenstest"
)

func TestMemory_KeepsTheContract(t *testing.T) {
	tokenstest.Run(t, func(t *testing.T) tokens.Store { return tokens.NewMemory() })
}
