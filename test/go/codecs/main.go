// Command codecs runs Go's own codecs on inputs from tinyhost's encoding conformance tests
// (test/conformance/encoding), the libraries the encoding-module components call:
// encoding/csv, github.com/goccy/go-json (the module's JSON package), encoding/xml, fmt,
// text/template and github.com/golang-jwt/jwt/v5 (v5.3.1, the module's pin).
//
// Input on stdin: one JSON object a line, {"id", "op", ...op fields}. Output on stdout: one JSON
// object a line, {"id", ...result} with `error` set when Go returned an error and `panic` when it
// panicked. Ops and fields:
//
//	csv_read      text, comma (a one-rune string), trim, lazy, ragged → records (every record read
//	              before the first error), error
//	csv_write     records, comma → text, error
//	json_decode   text → value (goccy Unmarshal into any, re-marshalled as JSON text), error
//	json_encode   value (JSON text, decoded into any by goccy first, as the runner does) → text, error
//	xml_encode    value (JSON text, decoded as above) → text (xml.NewEncoder(…).Encode), error
//	sprint        format, values (JSON text of a list, decoded as above) → text (fmt.Sprintf; with
//	              no format, fmt.Sprint of the one value)
//	template      templates, partials ([{name, content}]), name, data (JSON text), now (RFC 3339):
//	              each template parsed with the funcs `now` (fixed to the given time) and
//	              `builtWith`, every partial added to its set, then ExecuteTemplate(name) →
//	              text, error (a parse error is reported as parseError)
//	jwt_sign      method, claims (JSON text), key → token, error (the method's key parsed with
//	              golang-jwt's PEM parsers; HS keys are the key's bytes)
//	jwt_parse     token, method, key → claims (JSON text), error (jwt.Parse with a key of the
//	              method's kind; "None" allows unsigned tokens)
package main

import (
	"bufio"
	"bytes"
	stdjson "encoding/json"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/goccy/go-json"
	"github.com/golang-jwt/jwt/v5"
)

type named struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

type input struct {
	ID   string `json:"id"`
	Op   string `json:"op"`
	Text string `json:"text"`

	Comma  string `json:"comma"`
	Trim   bool   `json:"trim"`
	Lazy   bool   `json:"lazy"`
	Ragged bool   `json:"ragged"`

	Records [][]string `json:"records"`

	Value  stdjson.RawMessage `json:"value"`
	Format *string            `json:"format"`
	Values stdjson.RawMessage `json:"values"`

	Templates []named `json:"templates"`
	Partials  []named `json:"partials"`
	Name      string  `json:"name"`
	Data      string  `json:"data"`
	Now       string  `json:"now"`

	Method string `json:"method"`
	Claims string `json:"claims"`
	Key    string `json:"key"`
	Token  string `json:"token"`
}

type output struct {
	ID         string      `json:"id"`
	Records    [][]string  `json:"records,omitempty"`
	Text       *string     `json:"text,omitempty"`
	Value      *string     `json:"value,omitempty"`
	Token      *string     `json:"token,omitempty"`
	Claims     *string     `json:"claims,omitempty"`
	Error      *string     `json:"error,omitempty"`
	ParseError *string     `json:"parseError,omitempty"`
	Panic      interface{} `json:"panic,omitempty"`
}

func str(s string) *string { return &s }

func errText(err error) *string {
	if err == nil {
		return nil
	}
	return str(err.Error())
}

func csvRead(in input) output {
	r := csv.NewReader(strings.NewReader(in.Text))
	comma, _ := utf8.DecodeRuneInString(in.Comma)
	r.Comma = comma
	r.TrimLeadingSpace = in.Trim
	r.LazyQuotes = in.Lazy
	r.ReuseRecord = true
	if in.Ragged {
		r.FieldsPerRecord = -1
	}
	out := output{Records: [][]string{}}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			out.Error = errText(err)
			return out
		}
		out.Records = append(out.Records, append([]string(nil), rec...))
	}
}

func csvWrite(in input) output {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	comma, _ := utf8.DecodeRuneInString(in.Comma)
	w.Comma = comma
	for _, rec := range in.Records {
		if err := w.Write(rec); err != nil {
			return output{Error: errText(err)}
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return output{Error: errText(err)}
	}
	return output{Text: str(b.String())}
}

// decodeAny decodes JSON text into any with goccy/go-json, as the runner decodes a port's data.
func decodeAny(raw []byte) (interface{}, error) {
	var v interface{}
	err := json.Unmarshal(raw, &v)
	return v, err
}

func jsonDecode(in input) output {
	var v interface{}
	if err := json.Unmarshal([]byte(in.Text), &v); err != nil {
		return output{Error: errText(err)}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return output{Error: str("re-marshal: " + err.Error())}
	}
	return output{Value: str(string(b))}
}

func jsonEncode(in input) output {
	v, err := decodeAny(in.Value)
	if err != nil {
		return output{Error: str("input: " + err.Error())}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return output{Error: errText(err)}
	}
	return output{Text: str(string(b))}
}

func xmlEncode(in input) output {
	v, err := decodeAny(in.Value)
	if err != nil {
		return output{Error: str("input: " + err.Error())}
	}
	var b bytes.Buffer
	if err := xml.NewEncoder(&b).Encode(v); err != nil {
		return output{Text: str(b.String()), Error: errText(err)}
	}
	return output{Text: str(b.String())}
}

func sprint(in input) output {
	v, err := decodeAny(in.Values)
	if err != nil {
		return output{Error: str("input: " + err.Error())}
	}
	list, _ := v.([]interface{})
	if in.Format == nil {
		return output{Text: str(fmt.Sprint(list...))}
	}
	return output{Text: str(fmt.Sprintf(*in.Format, list...))}
}

func render(in input) output {
	now, err := time.Parse(time.RFC3339Nano, in.Now)
	if err != nil {
		return output{Error: str("input now: " + err.Error())}
	}
	funcs := template.FuncMap{
		"now": func() time.Time { return now },
		"builtWith": func() string {
			return `<a href="https://tinysystems.io?from=builtwith" target="_blank">Built with Tiny Systems</a>`
		},
	}
	sets := map[string]*template.Template{}
	for _, t := range in.Templates {
		tmpl, err := template.New(t.Name).Funcs(funcs).Parse(t.Content)
		if err != nil {
			return output{ParseError: errText(err)}
		}
		for _, p := range in.Partials {
			if _, err := tmpl.New(p.Name).Parse(p.Content); err != nil {
				return output{ParseError: errText(err)}
			}
		}
		sets[t.Name] = tmpl
	}
	var data interface{}
	if in.Data != "" {
		if data, err = decodeAny([]byte(in.Data)); err != nil {
			return output{Error: str("input data: " + err.Error())}
		}
	}
	set, ok := sets[in.Name]
	if !ok {
		return output{Error: str("template not found")}
	}
	var b bytes.Buffer
	if err := set.ExecuteTemplate(&b, in.Name, data); err != nil {
		return output{Text: str(b.String()), Error: errText(err)}
	}
	return output{Text: str(b.String())}
}

// jwtSign signs as the component does: the method picks golang-jwt's key parser, whose error is
// dropped (a bad PEM key reaches the signer as a nil key); an unknown method signs HS256 with no
// key; "None" signs with no key.
func jwtSign(in input) output {
	var claims jwt.MapClaims
	if err := json.Unmarshal([]byte(in.Claims), &claims); err != nil {
		return output{Error: str("input claims: " + err.Error())}
	}
	var (
		key    interface{}
		method jwt.SigningMethod = jwt.SigningMethodHS256
	)
	switch in.Method {
	case "ES256", "ES384", "ES512":
		method = jwt.GetSigningMethod(in.Method)
		key, _ = jwt.ParseECPrivateKeyFromPEM([]byte(in.Key))
	case "HS256", "HS384", "HS512":
		method = jwt.GetSigningMethod(in.Method)
		key = []byte(in.Key)
	case "RS256", "RS384", "RS512":
		method = jwt.GetSigningMethod(in.Method)
		key, _ = jwt.ParseRSAPrivateKeyFromPEM([]byte(in.Key))
	case "None":
		method = jwt.SigningMethodNone
	}
	token, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		return output{Error: errText(err)}
	}
	return output{Token: str(token)}
}

func verifyKey(method, key string) (jwt.Keyfunc, error) {
	switch method {
	case "ES256", "ES384", "ES512":
		k, err := jwt.ParseECPublicKeyFromPEM([]byte(key))
		if err != nil {
			return nil, fmt.Errorf("parse EC public key: %w", err)
		}
		return func(*jwt.Token) (interface{}, error) { return k, nil }, nil
	case "RS256", "RS384", "RS512":
		k, err := jwt.ParseRSAPublicKeyFromPEM([]byte(key))
		if err != nil {
			return nil, fmt.Errorf("parse RSA public key: %w", err)
		}
		return func(*jwt.Token) (interface{}, error) { return k, nil }, nil
	case "HS256", "HS384", "HS512":
		return func(*jwt.Token) (interface{}, error) { return []byte(key), nil }, nil
	case "None":
		return func(*jwt.Token) (interface{}, error) { return jwt.UnsafeAllowNoneSignatureType, nil }, nil
	default:
		return nil, fmt.Errorf("unsupported signing method: %s", method)
	}
}

func jwtParse(in input) output {
	keyFunc, err := verifyKey(in.Method, in.Key)
	if err != nil {
		return output{Error: errText(err)}
	}
	token, err := jwt.Parse(in.Token, keyFunc)
	if err != nil {
		return output{Error: str(fmt.Errorf("token verification failed: %w", err).Error())}
	}
	claims, ok := token.Claims.(jwt.MapClaims)
	if !ok {
		return output{Error: str("unexpected claims type")}
	}
	b, err := json.Marshal(claims)
	if err != nil {
		return output{Error: str("re-marshal: " + err.Error())}
	}
	return output{Claims: str(string(b))}
}

func run(in input) (out output) {
	defer func() {
		if r := recover(); r != nil {
			out = output{Panic: fmt.Sprint(r)}
		}
		out.ID = in.ID
	}()
	switch in.Op {
	case "csv_read":
		return csvRead(in)
	case "csv_write":
		return csvWrite(in)
	case "json_decode":
		return jsonDecode(in)
	case "json_encode":
		return jsonEncode(in)
	case "xml_encode":
		return xmlEncode(in)
	case "sprint":
		return sprint(in)
	case "template":
		return render(in)
	case "jwt_sign":
		return jwtSign(in)
	case "jwt_parse":
		return jwtParse(in)
	}
	return output{Error: str("unknown op " + in.Op)}
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	enc := stdjson.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for sc.Scan() {
		var in input
		if err := stdjson.Unmarshal(sc.Bytes(), &in); err != nil {
			fmt.Fprintf(os.Stderr, "codecs: bad input line: %v\n", err)
			os.Exit(2)
		}
		if err := enc.Encode(run(in)); err != nil {
			fmt.Fprintln(os.Stderr, "codecs:", err)
			os.Exit(2)
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "codecs:", err)
		os.Exit(2)
	}
}
