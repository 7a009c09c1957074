package main

import (
	"reflect"
	"strings"

	"github.com/goccy/go-json"
)

var marshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

// view turns a decoded port value into plain JSON data showing every field a Go component sees:
// unlike json.Marshal it ignores `omitempty`, so a zero field is shown as its zero value instead
// of disappearing. nil slices, maps, pointers and interfaces are null. A type with its own
// MarshalJSON (router's RouteName) is shown as it marshals.
func view(v reflect.Value) interface{} {
	if !v.IsValid() {
		return nil
	}
	if v.Kind() != reflect.Pointer && v.Kind() != reflect.Interface {
		if v.Type().Implements(marshalerType) || (v.CanAddr() && v.Addr().Type().Implements(marshalerType)) {
			target := v.Interface()
			if v.CanAddr() {
				target = v.Addr().Interface()
			}
			return marshalled(target)
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return view(v.Elem())
	case reflect.Struct:
		out := map[string]interface{}{}
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := f.Name
			if tag, ok := f.Tag.Lookup("json"); ok {
				n, _, _ := strings.Cut(tag, ",")
				if n == "-" {
					continue
				}
				if n != "" {
					name = n
				}
			}
			out[name] = view(v.Field(i))
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		fallthrough
	case reflect.Array:
		out := make([]interface{}, v.Len())
		for i := range out {
			out[i] = view(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		out := map[string]interface{}{}
		iter := v.MapRange()
		for iter.Next() {
			out[iter.Key().String()] = view(iter.Value())
		}
		return out
	default:
		return v.Interface()
	}
}

func marshalled(v interface{}) interface{} {
	b, err := json.Marshal(v)
	if err != nil {
		return map[string]interface{}{"marshalError": err.Error()}
	}
	var out interface{}
	if err := json.Unmarshal(b, &out); err != nil {
		return map[string]interface{}{"marshalError": err.Error()}
	}
	return out
}
