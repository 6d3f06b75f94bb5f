package result_test

import (
	"encoding/json"
	"testing"

	"github.com/toolpack-go/toolpack/result"
)

// FuzzUnmarshal feeds arbitrary bytes to Result.UnmarshalJSON: it must never
// panic, and whatever it accepts must survive a marshal/unmarshal round trip
// with an unchanged JSON form.
func FuzzUnmarshal(f *testing.F) {
	f.Add([]byte(`{"success":true,"value":"x"}`))
	f.Add([]byte(`{"success":false,"error":"e","error_type":"not_found","exception_type":"T","exception_message":"m","error_data":[1,2]}`))
	f.Add([]byte(`{"success":true,"value":9007199254740993}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r result.Result[any]
		if err := json.Unmarshal(data, &r); err != nil {
			return
		}
		b1, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("accepted %q but cannot marshal it: %v", data, err)
		}
		var back result.Result[any]
		if err := json.Unmarshal(b1, &back); err != nil {
			t.Fatalf("cannot read own output %s: %v", b1, err)
		}
		b2, err := json.Marshal(back)
		if err != nil {
			t.Fatal(err)
		}
		if string(b1) != string(b2) {
			t.Fatalf("unstable JSON form:\n%s\n%s", b1, b2)
		}
	})
}

// FuzzContentUnmarshal feeds arbitrary bytes to Content.UnmarshalJSON: it
// must never panic, whatever it accepts validates, and its JSON form is
// stable across a round trip.
func FuzzContentUnmarshal(f *testing.F) {
	f.Add([]byte(`{"type":"image","data":"AQID","mimeType":"image/png"}`))
	f.Add([]byte(`{"type":"resource","uri":"test://x","text":"t","mimeType":"text/plain"}`))
	f.Add([]byte(`{"type":"resource_link","uri":"u","name":"n"}`))
	f.Add([]byte(`[{"type":"text","text":"a"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c result.Content
		if err := json.Unmarshal(data, &c); err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted %q but it does not validate: %v", data, err)
		}
		b1, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back result.Content
		if err := json.Unmarshal(b1, &back); err != nil {
			t.Fatalf("cannot read own output %s: %v", b1, err)
		}
		b2, _ := json.Marshal(back)
		if string(b1) != string(b2) {
			t.Fatalf("unstable JSON form:\n%s\n%s", b1, b2)
		}
	})
}
