/* libqrencode (libqrencode-dev): the enrolment's login URL as a QR code on the screen. */
#include <qrencode.h>
