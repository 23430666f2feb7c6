/* SPDX-License-Identifier: Apache-2.0 */
/* libqrencode (libqrencode-dev): the enrolment's login URL as a QR code on the screen. */
#include <qrencode.h>
