#ifndef CFIXXML2_SHIM_H
#define CFIXXML2_SHIM_H
#include <libxml/xmlversion.h>
/* Debian's libxml2 is built with ICU, and encoding.h then includes <unicode/ucnv.h>. That
 * system ICU's UErrorCode clashes with the copy Foundation carries (_FoundationICU) in any
 * module that sees both, such as the tests. We never touch the encoding handlers' ICU fields,
 * the only declarations the macro adds, so hide them. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#endif
