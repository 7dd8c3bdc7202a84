package termsafe

import "testing"

func TestEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"web-7d4b9c-x2x", "web-7d4b9c-x2x"},
		{"héllo wörld", "héllo wörld"},
		{"evil\x1b[2Jname", `evil\x1b[2Jname`},
		{"two\nlines", `two\nlines`},
		{"tab\there", `tab\there`},
		{"rtl\u202eoverride", `rtl\u202eoverride`},
		{"bell\a", `bell\a`},
		{"c1\u009bcsi", `c1\u009bcsi`},
		{"bad\xffutf8", `bad\xffutf8`},
	}
	for _, c := range cases {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
