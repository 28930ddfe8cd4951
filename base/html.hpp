// Escaping text for HTML and SVG documents that we build as strings.
//
// Everything that did not come from our own code (kernel sources, plan
// titles, model names, error texts: untrusted LLM or user text) goes through
// HtmlEscape before it is put into a document, in element content and in
// quoted attribute values alike. Invalid UTF-8 is replaced with U+FFFD so a
// browser cannot be tricked into re-synchronizing inside markup.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace accelopt {

// & < > " ' become entities; NUL and other C0 controls except \t \n \r are
// dropped; invalid UTF-8 bytes become U+FFFD.
std::string HtmlEscape(std::string_view text);

// A number as an attribute or text value: the shortest form that reads back
// as the same double (what nlohmann's dump writes), "null" for NaN/inf.
std::string HtmlNumber(double v);

}  // namespace accelopt
