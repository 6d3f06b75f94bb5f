package mockbackend_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/toolpack-go/toolpack/packs/oj/mockbackend"
)

func ExampleBackend() {
	b := mockbackend.New(mockbackend.Options{})
	srv := httptest.NewServer(b)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/v1/problems/leetcode/missing")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(resp.StatusCode, " ", string(body))
	fmt.Println(b.Requests()[0].URI)
	// Output:
	// 404 {"detail":"problem leetcode/missing not found","status":404,"title":"Not Found","type":"about:blank"}
	// /api/v1/problems/leetcode/missing
}
