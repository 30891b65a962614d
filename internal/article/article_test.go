package article_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pond-go/pond/internal/article"
)

func TestAChoosesTheArticleByTheFirstLetter(t *testing.T) {
	for word, want := range map[string]string{
		"array":      "an array",
		"invalid(9)": "an invalid(9)",
		"number":     "a number",
		"time":       "a time",
		"boolean":    "a boolean",
		"string":     "a string",
		"Array":      "an Array",
		"":           "a ",
	} {
		assert.Equal(t, want, article.A(word))
	}
}
