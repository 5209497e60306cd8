// Client answers to MRTR input requests, modern or bridged, checked before a handler reads them.
//
// Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr,
// https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#response-actions,
// https://modelcontextprotocol.io/specification/2026-07-28/client/sampling#creating-messages,
// https://modelcontextprotocol.io/specification/2026-07-28/client/roots#root.

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// parseInputResponse checks raw as the result of a method request (an elicitation's mode, a
// form's schema); member names that imitate a known one by case folding are refused. Without
// mode and schema (an answer read back from a verified requestState) only the shape is checked.
func parseInputResponse(method, mode string, schema, raw []byte) (*inputResponse, error) {
	members, err := objectMembers(raw)
	if err != nil {
		return nil, errors.New("must be an object")
	}
	a := &inputResponse{Method: method, raw: compactJSON(raw)}
	switch method {
	case methodElicit:
		err = a.parseElicit(members, mode, schema)
	case methodCreateMessage:
		err = a.parseCreateMessage(members)
	case methodListRoots:
		err = a.parseRoots(members)
	default:
		err = errors.New("is not an elicitation, sampling or roots result")
	}
	if err != nil {
		return nil, err
	}
	if method == methodElicit {
		// Only what was checked is carried forward in requestState.
		a.raw = mustMarshal(struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content,omitempty"`
		}{a.Action, a.Content})
	}
	return a, nil
}

// checkNames refuses members that imitate one of names by case folding.
func checkNames(members []member, names ...string) error {
	for _, m := range members {
		if known := foldedName(m.name, names...); known != "" {
			return fmt.Errorf("member %q is not %q", m.name, known)
		}
	}
	return nil
}

// parseElicit checks an ElicitResult. Content in a URL-mode answer was not asked for: dropped.
// [§Response Actions]: https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#response-actions
func (a *inputResponse) parseElicit(members []member, mode string, schema []byte) error {
	if err := checkNames(members, "action", "content"); err != nil {
		return err
	}
	a.Action, _ = jsonString(memberValue(members, "action"))
	switch a.Action {
	case actionAccept:
	case actionDecline, actionCancel:
		return nil // content is meaningless without accept, and dropped
	default:
		return errors.New(`elicitation result needs action "accept", "decline" or "cancel"`)
	}
	if mode == elicitModeURL {
		return nil
	}
	// schema is nil for an answer to a server request; from requestState it may fail to parse
	// (sealed by a replica whose parser accepted it: beginInput), which refuses content.
	fields, schemaErr := parseRequestedSchema(schema)
	content := memberValue(members, "content")
	if content == nil || jsonKind(content) == 'n' {
		if slices.ContainsFunc(fields, func(f formField) bool { return f.required }) {
			return errors.New("accepted form result has no content")
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(content))
	dec.UseNumber()
	if err := dec.Decode(&a.Content); err != nil { // not an object
		return errors.New("elicitation content must be an object")
	}
	for name, v := range a.Content {
		if !isFormValue(v) {
			return fmt.Errorf("elicitation content %q must be a string, number, boolean or array of strings", name)
		}
	}
	if schema != nil {
		if schemaErr != nil {
			return schemaErr
		}
		return checkFormContent(fields, a.Content)
	}
	return nil
}

// isFormValue reports whether v is a value ElicitResult.content allows.
func isFormValue(v any) bool {
	switch v := v.(type) {
	case string, json.Number, bool:
		return true
	case []any:
		for _, item := range v {
			if _, ok := item.(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// parseCreateMessage checks a CreateMessageResult: role, model, content required; Text joins text.
// [§Creating Messages]: https://modelcontextprotocol.io/specification/2026-07-28/client/sampling#creating-messages
func (a *inputResponse) parseCreateMessage(members []member) error {
	if err := checkNames(members, "role", "content", "model", "stopReason"); err != nil {
		return err
	}
	var hasModel, ok bool
	a.Role, _ = jsonString(memberValue(members, "role"))
	a.Model, hasModel = jsonString(memberValue(members, "model"))
	stop := memberValue(members, "stopReason")
	if a.StopReason, ok = jsonString(stop); !ok && stop != nil && jsonKind(stop) != 'n' {
		return errors.New("sampling result stopReason must be a string")
	}
	if a.Role != "assistant" && a.Role != "user" {
		return errors.New(`sampling result needs role "assistant" or "user"`)
	}
	if !hasModel {
		return errors.New("sampling result needs a model string")
	}
	var blocks []json.RawMessage
	switch content := memberValue(members, "content"); jsonKind(content) {
	case '{':
		blocks = []json.RawMessage{content}
	case '[':
		if err := json.Unmarshal(content, &blocks); err != nil {
			return errors.New("sampling result content is malformed")
		}
	default:
		return errors.New("sampling result needs content (a block or an array of blocks)")
	}
	var text strings.Builder
	for _, b := range blocks {
		fields, err := objectMembers(b)
		if err != nil {
			return errors.New("sampling result content blocks must be objects")
		}
		typ, hasType := jsonString(memberValue(fields, "type"))
		txt, hasText := jsonString(memberValue(fields, "text"))
		if !hasType {
			return errors.New("sampling result content block needs a type")
		}
		if typ == "text" {
			if !hasText {
				return errors.New("sampling result text block needs text")
			}
			text.WriteString(txt)
		}
	}
	a.Text = text.String()
	return nil
}

// parseRoots checks a ListRootsResult. Root URIs must be file:// URIs.
// [§Root]: https://modelcontextprotocol.io/specification/2026-07-28/client/roots#root
func (a *inputResponse) parseRoots(members []member) error {
	if err := checkNames(members, "roots"); err != nil {
		return err
	}
	list := memberValue(members, "roots")
	if jsonKind(list) != '[' {
		return errors.New("roots result needs a roots array")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(list, &items); err != nil {
		return errors.New("roots result is malformed")
	}
	a.Roots = []root{}
	for _, item := range items {
		fields, err := objectMembers(item)
		if err != nil {
			return errors.New("each root must be an object")
		}
		uri, hasURI := jsonString(memberValue(fields, "uri"))
		if !hasURI || !strings.HasPrefix(uri, "file://") {
			return errors.New("each root needs a file:// uri")
		}
		name, _ := jsonString(memberValue(fields, "name"))
		a.Roots = append(a.Roots, root{URI: uri, Name: name})
	}
	return nil
}
