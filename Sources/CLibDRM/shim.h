/* SPDX-License-Identifier: Apache-2.0 */
#include <stdint.h>
#include <string.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>
#include <sys/mman.h>

/* Dumb buffers: the ioctl request numbers are function-like macros Swift cannot import. */
static inline int ik_drm_create_dumb(int fd, uint32_t width, uint32_t height,
                                     uint32_t *handle, uint32_t *pitch, uint64_t *size) {
    struct drm_mode_create_dumb req = { .width = width, .height = height, .bpp = 32 };
    int r = drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &req);
    if (r == 0) { *handle = req.handle; *pitch = req.pitch; *size = req.size; }
    return r;
}

static inline int ik_drm_map_dumb(int fd, uint32_t handle, uint64_t *offset) {
    struct drm_mode_map_dumb req = { .handle = handle };
    int r = drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &req);
    if (r == 0) *offset = req.offset;
    return r;
}

static inline int ik_drm_destroy_dumb(int fd, uint32_t handle) {
    struct drm_mode_destroy_dumb req = { .handle = handle };
    return drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &req);
}

/* A property's name in one ioctl: libdrm's drmModeGetProperty asks twice (the counts, then the
 * values and enums) and allocates; atomic KMS needs most properties only by name. */
static inline int ik_drm_property_name(int fd, uint32_t prop_id, char name[DRM_PROP_NAME_LEN]) {
    struct drm_mode_get_property req = { .prop_id = prop_id };
    int r = drmIoctl(fd, DRM_IOCTL_MODE_GETPROPERTY, &req);
    if (r == 0) memcpy(name, req.name, DRM_PROP_NAME_LEN);
    return r;
}

static inline uint32_t ik_drm_format_xrgb8888(void) { return DRM_FORMAT_XRGB8888; }
static inline uint32_t ik_drm_format_argb8888(void) { return DRM_FORMAT_ARGB8888; }
