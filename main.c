#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int wi_resample_rgba8(const uint8_t *src, int sw, int sh, size_t stride, uint8_t *dst, int w, int h, int o);
int scalar_resample(const uint8_t *src, int sw, int sh, size_t stride, uint8_t *dst, int w, int h, int o);
int main(void) {
    srand(7); long cases = 0, diffs = 0;
    for (int t = 0; t < 3000; t++) {
        int sw = 1 + rand() % 300, sh = 1 + rand() % 200;
        int w = 1 + rand() % sw, h = 1 + rand() % sh, o = 1 + rand() % 8;
        size_t stride = (size_t)sw * 4 + (rand() % 3) * 4;
        uint8_t *src = malloc(stride * sh); for (size_t i = 0; i < stride * sh; i++) src[i] = rand();
        int ow = o >= 5 ? h : w, oh = o >= 5 ? w : h;
        uint8_t *a = calloc((size_t)w * h, 4), *b = calloc((size_t)w * h, 4);
        int ra = wi_resample_rgba8(src, sw, sh, stride, a, w, h, o), rb = scalar_resample(src, sw, sh, stride, b, w, h, o);
        (void)ow; (void)oh;
        cases++; if (ra != rb || memcmp(a, b, (size_t)w * h * 4)) { diffs++; if (diffs < 5) printf("diff %dx%d -> %dx%d o%d\n", sw, sh, w, h, o); }
        free(src); free(a); free(b);
    }
    printf("cases %ld differing %ld\n", cases, diffs);
}
