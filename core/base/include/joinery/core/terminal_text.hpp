#pragma once
/// @file terminal_text.hpp
/// Strings from a scene or a library made safe for a terminal.

#include <string>

namespace joinery {

/// One string from a scene or a library (a name, a description, a unit) made safe to print on
/// one line of a terminal: C0 controls and DEL as `\xNN` (newline and tab too), the C1
/// controls U+0080..U+009F (UTF-8 C2 80..C2 9F; U+009B is CSI) as `\u00NN`, bytes that are not
/// UTF-8 as `\xNN`; never cut. sanitizeMessage (errors.hpp), through which every Error's
/// message passes, escapes the same way but keeps newlines and tabs and bounds the length.
std::string sanitizeForTerminal(const std::string& text);

}  // namespace joinery
