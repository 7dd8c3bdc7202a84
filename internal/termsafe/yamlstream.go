package termsafe

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// YAMLStream returns a writer that takes JSON values, as NewJSONEncoder
// writes them, and writes each to w as a YAML document (MarshalYAML: the
// same keys, in the same order), "---" between two documents as kubectl's
// -o yaml writes a stream. A value split across writes is held until it is
// whole; what is not JSON is an error.
func YAMLStream(w io.Writer) io.Writer { return &yamlStream{w: w} }

type yamlStream struct {
	w       io.Writer
	pending []byte
	written bool
}

func (s *yamlStream) Write(p []byte) (int, error) {
	s.pending = append(s.pending, p...)
	for {
		rest := bytes.TrimLeft(s.pending, " \t\r\n")
		if len(rest) == 0 {
			s.pending = s.pending[:0]
			return len(p), nil
		}
		dec := json.NewDecoder(bytes.NewReader(rest))
		var value json.RawMessage
		if err := dec.Decode(&value); errors.Is(err, io.ErrUnexpectedEOF) {
			s.pending = rest
			return len(p), nil
		} else if err != nil {
			return 0, err
		}
		if err := s.document(value); err != nil {
			return 0, err
		}
		s.pending = rest[dec.InputOffset():]
	}
}

// document writes one value as YAML, after "---" unless it is the first.
func (s *yamlStream) document(value json.RawMessage) error {
	out, err := MarshalYAML(value)
	if err != nil {
		return err
	}
	if s.written {
		out = append([]byte("---\n"), out...)
	}
	s.written = true
	_, err = s.w.Write(out)
	return err
}
