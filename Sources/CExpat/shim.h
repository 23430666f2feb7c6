/* SPDX-License-Identifier: Apache-2.0 */
/* Expat, the streaming XML parser (libexpat1-dev): WebDAV's PROPFIND answers are XML. */
#include <expat.h>
