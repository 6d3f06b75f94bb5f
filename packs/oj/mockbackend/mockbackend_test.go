package mockbackend_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/packs/oj/mockbackend"
)

// TestDistinctStatementPerID: ids starting with "distinct-" get a statement
// of their own (naming the id, HTML-escaped), other ids the shared one.
func TestDistinctStatementPerID(t *testing.T) {
	srv := httptest.NewServer(mockbackend.New(mockbackend.Options{}))
	defer srv.Close()
	content := func(id string) string {
		resp, err := http.Get(srv.URL + "/api/v1/problems/leetcode/" + id)
		require.NoError(t, err)
		defer resp.Body.Close()
		var p struct {
			Content string `json:"content"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&p))
		return p.Content
	}
	shared := mockbackend.Fixture("leetcode", "1")["content"].(string)
	assert.Equal(t, shared, content("1"))
	assert.Equal(t, shared, content("2"))
	a, b := content("distinct-1"), content("distinct-2")
	assert.NotEqual(t, a, b)
	assert.Contains(t, a, "<code>distinct-1</code>")
	assert.Contains(t, a, shared, "the same shape as the shared statement")
	assert.Contains(t, content("distinct-%3Cx%3E"), "<code>distinct-&lt;x&gt;</code>")
}
