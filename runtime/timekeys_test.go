package runtime

import "testing"

// sm90's gemv keys rank by a predicted time; its mmvq keys use model
// constants only as thresholds, so explanations quote them and the fitter
// has no time to regress.
func TestTimeKeys(t *testing.T) {
	if len(ModelKeys("sm90", "gemv")) == 0 || len(TimeKeys("sm90", "gemv")) == 0 {
		t.Errorf("sm90 gemv: model keys %v, time keys %v; want a predicted-time key", ModelKeys("sm90", "gemv"), TimeKeys("sm90", "gemv"))
	}
	if len(ModelKeys("sm90", "mmvq")) == 0 {
		t.Errorf("sm90 mmvq: no key uses the model constants (mq_*)")
	}
	if tk := TimeKeys("sm90", "mmvq"); len(tk) != 0 {
		t.Errorf("sm90 mmvq: time keys %v; want none (threshold keys)", tk)
	}
	rs, err := PreferRules("sm90", "mmvq")
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range ModelKeys("sm90", "mmvq") {
		if l := keyLabels("sm90", "mmvq", rs)[i]; l[0] != '"' {
			t.Errorf("sm90 mmvq key %d labelled %q; want the quoted rule", i+1, l)
		}
	}
}
