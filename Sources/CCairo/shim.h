/* SPDX-License-Identifier: Apache-2.0 */
#include <cairo/cairo.h>
#include <cairo/cairo-svg.h>
#include <cairo/cairo-pdf.h>
