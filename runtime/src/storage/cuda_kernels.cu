// placer-runtime CUDA kernels, compiled once per process with NVRTC.
// Every elementwise kernel reads its inputs through a strided `Info` (dims, per-operand strides
// and offsets, in elements) and writes a contiguous output; grid-stride loops.

#define MAXR 8
struct Info {
    unsigned long long dims[MAXR];
    unsigned long long strides[4][MAXR];
    unsigned long long offsets[4];
    int rank;
    int pad;
};

typedef unsigned long long u64;

__device__ __forceinline__ u64 off(const Info& in, int w, u64 i) {
    u64 o = in.offsets[w];
    for (int d = in.rank - 1; d >= 0; --d) {
        u64 dim = in.dims[d];
        o += (i % dim) * in.strides[w][d];
        i /= dim;
    }
    return o;
}

#define LOOP(n) for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < (n); i += (u64)blockDim.x * gridDim.x)

template <typename T> __device__ __forceinline__ bool isnan_(T x) { return x != x; }
template <typename T> __device__ __forceinline__ T maxn(T a, T b) { return isnan_(a) ? a : isnan_(b) ? b : (a >= b ? a : b); }
template <typename T> __device__ __forceinline__ T minn(T a, T b) { return isnan_(a) ? a : isnan_(b) ? b : (a <= b ? a : b); }

// ---------------------------------------------------------------- copies by element width
#define COPY(NAME, T) \
extern "C" __global__ void copy_##NAME(u64 n, Info in, const T* src, T* dst) { \
    LOOP(n) { dst[off(in, 1, i)] = src[off(in, 0, i)]; } \
}
COPY(b1, unsigned char) COPY(b2, unsigned short) COPY(b4, unsigned int) COPY(b8, unsigned long long)

#define WHERE(NAME, T) \
extern "C" __global__ void where_##NAME(u64 n, Info in, const unsigned char* c, const T* a, const T* b, T* out) { \
    LOOP(n) { out[i] = c[off(in, 0, i)] ? a[off(in, 1, i)] : b[off(in, 2, i)]; } \
}
WHERE(b1, unsigned char) WHERE(b2, unsigned short) WHERE(b4, unsigned int) WHERE(b8, unsigned long long)

// src is contiguous [outer, d, inner]; ids are in 0..d (checked on the host); dst is [outer, k, inner].
#define INDEX_SELECT(NAME, T) \
extern "C" __global__ void index_select_##NAME(u64 n, u64 d, u64 inner, u64 k, const long long* ids, const T* src, T* dst) { \
    LOOP(n) { \
        u64 j = i % inner; u64 r = i / inner; u64 kk = r % k; u64 o = r / k; \
        dst[i] = src[(o * d + (u64)ids[kk]) * inner + j]; \
    } \
}
INDEX_SELECT(b1, unsigned char) INDEX_SELECT(b2, unsigned short) INDEX_SELECT(b4, unsigned int) INDEX_SELECT(b8, unsigned long long)

// ---------------------------------------------------------------- binary and comparison
#define BIN(OP, NAME, T, EXPR) \
extern "C" __global__ void OP##_##NAME(u64 n, Info in, const T* a, const T* b, T* out) { \
    LOOP(n) { T x = a[off(in, 0, i)]; T y = b[off(in, 1, i)]; out[i] = (T)(EXPR); } \
}
BIN(add, f32, float, x + y) BIN(sub, f32, float, x - y) BIN(mul, f32, float, x * y) BIN(div, f32, float, x / y)
BIN(maximum, f32, float, maxn<float>(x, y)) BIN(minimum, f32, float, minn<float>(x, y))
// Signed overflow wraps (as Rust's wrapping ops): compute in unsigned.
BIN(add, i64, long long, (u64)x + (u64)y) BIN(sub, i64, long long, (u64)x - (u64)y) BIN(mul, i64, long long, (u64)x * (u64)y)
BIN(maximum, i64, long long, maxn<long long>(x, y)) BIN(minimum, i64, long long, minn<long long>(x, y))
BIN(add, u8, unsigned char, x + y) BIN(sub, u8, unsigned char, x - y) BIN(mul, u8, unsigned char, x * y)
BIN(maximum, u8, unsigned char, maxn<unsigned char>(x, y)) BIN(minimum, u8, unsigned char, minn<unsigned char>(x, y))

#define CMP(OP, NAME, T, EXPR) \
extern "C" __global__ void OP##_##NAME(u64 n, Info in, const T* a, const T* b, unsigned char* out) { \
    LOOP(n) { T x = a[off(in, 0, i)]; T y = b[off(in, 1, i)]; out[i] = (EXPR) ? 1 : 0; } \
}
#define CMPS(NAME, T) CMP(eq, NAME, T, x == y) CMP(ne, NAME, T, x != y) CMP(lt, NAME, T, x < y) \
    CMP(le, NAME, T, x <= y) CMP(gt, NAME, T, x > y) CMP(ge, NAME, T, x >= y)
CMPS(f32, float) CMPS(i64, long long) CMPS(u8, unsigned char)

// ---------------------------------------------------------------- unary and affine
#define UN(OP, NAME, T, EXPR) \
extern "C" __global__ void OP##_##NAME(u64 n, Info in, const T* a, T* out) { \
    LOOP(n) { T x = a[off(in, 0, i)]; out[i] = (EXPR); } \
}
UN(neg, f32, float, -x) UN(exp, f32, float, expf(x)) UN(log, f32, float, logf(x)) UN(sqrt, f32, float, sqrtf(x))
UN(tanh, f32, float, tanhf(x)) UN(gelu, f32, float, 0.5f * x * (1.0f + erff(x * 0.7071067811865476f)))
UN(relu, f32, float, (x > 0.0f || x != x) ? x : 0.0f) UN(silu, f32, float, x / (1.0f + expf(-x)))
UN(abs, f32, float, fabsf(x))
UN(neg, i64, long long, (long long)(0ULL - (u64)x)) UN(abs, i64, long long, x < 0 ? (long long)(0ULL - (u64)x) : x)
UN(relu, i64, long long, x > 0 ? x : 0)

// ---------------------------------------------------------------- conversions (as Rust `as`)
__device__ __forceinline__ double from_f32(float x) { return (double)x; }
__device__ __forceinline__ double from_f16(unsigned short h) {
    float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return (double)f;
}
__device__ __forceinline__ double from_bf16(unsigned short h) { return (double)__uint_as_float(((unsigned int)h) << 16); }
__device__ __forceinline__ double from_i64(long long x) { return (double)x; }
__device__ __forceinline__ double from_u8(unsigned char x) { return (double)x; }
__device__ __forceinline__ double from_bool(unsigned char x) { return x ? 1.0 : 0.0; }

__device__ __forceinline__ float to_f32(double x) { return (float)x; }
__device__ __forceinline__ unsigned short to_f16(double x) {
    float f = (float)x; unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
__device__ __forceinline__ unsigned short to_bf16(double x) {
    unsigned int u = __float_as_uint((float)x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
__device__ __forceinline__ long long to_i64(double x) {
    if (x != x) return 0;
    if (x >= 9223372036854775807.0) return 9223372036854775807LL;
    if (x <= -9223372036854775808.0) return (-9223372036854775807LL - 1);
    return (long long)x;
}
__device__ __forceinline__ unsigned char to_u8(double x) {
    if (x != x || x <= 0.0) return 0;
    if (x >= 255.0) return 255;
    return (unsigned char)x;
}
__device__ __forceinline__ unsigned char to_bool(double x) { return x != 0.0 ? 1 : 0; }

#define CAST(F, FT, T, TT) \
extern "C" __global__ void cast_##F##_##T(u64 n, Info in, const FT* src, TT* dst) { \
    LOOP(n) { dst[i] = to_##T(from_##F(src[off(in, 0, i)])); } \
}
#define CASTS_FROM(F, FT) CAST(F, FT, f32, float) CAST(F, FT, f16, unsigned short) CAST(F, FT, bf16, unsigned short) \
    CAST(F, FT, i64, long long) CAST(F, FT, u8, unsigned char) CAST(F, FT, bool, unsigned char)
CASTS_FROM(f32, float) CASTS_FROM(f16, unsigned short) CASTS_FROM(bf16, unsigned short)
CASTS_FROM(i64, long long) CASTS_FROM(u8, unsigned char) CASTS_FROM(bool, unsigned char)

extern "C" __global__ void affine_f32(u64 n, Info in, const float* a, float* out, float mul, float add) {
    LOOP(n) { out[i] = a[off(in, 0, i)] * mul + add; }
}
// Integers: exact, wrapping arithmetic (as Rust's wrapping ops and PyTorch); the host checked
// that the scalars are whole numbers in range and passes them as integers (u8: modulo 256).
extern "C" __global__ void affine_i64(u64 n, Info in, const long long* a, long long* out, long long mul, long long add) {
    LOOP(n) { out[i] = (long long)((u64)a[off(in, 0, i)] * (u64)mul + (u64)add); }
}
extern "C" __global__ void affine_u8(u64 n, Info in, const unsigned char* a, unsigned char* out, unsigned char mul, unsigned char add) {
    LOOP(n) { out[i] = (unsigned char)(a[off(in, 0, i)] * mul + add); }
}

// ---------------------------------------------------------------- reductions over [outer, d, inner]
#define SUM(NAME, T, ACC, OUT, ADD) \
extern "C" __global__ void sum_##NAME(u64 n, u64 d, u64 inner, const T* src, OUT* out) { \
    LOOP(n) { \
        u64 o = i / inner; u64 j = i % inner; ACC acc = 0; \
        for (u64 k = 0; k < d; ++k) { ACC x = (ACC)src[(o * d + k) * inner + j]; acc = ADD; } \
        out[i] = (OUT)acc; \
    } \
}
SUM(f32, float, float, float, acc + x)
SUM(i64, long long, u64, long long, acc + x)
SUM(u8, unsigned char, u64, long long, acc + x)

extern "C" __global__ void mean_f32(u64 n, u64 d, u64 inner, const float* src, float* out) {
    LOOP(n) {
        u64 o = i / inner; u64 j = i % inner; float acc = 0.0f;
        for (u64 k = 0; k < d; ++k) acc += src[(o * d + k) * inner + j];
        out[i] = acc / (float)d;
    }
}

#define MAXARG(NAME, T) \
extern "C" __global__ void max_##NAME(u64 n, u64 d, u64 inner, const T* src, T* out) { \
    LOOP(n) { \
        u64 o = i / inner; u64 j = i % inner; T m = src[o * d * inner + j]; \
        for (u64 k = 1; k < d; ++k) m = maxn<T>(m, src[(o * d + k) * inner + j]); \
        out[i] = m; \
    } \
} \
extern "C" __global__ void argmax_##NAME(u64 n, u64 d, u64 inner, const T* src, long long* out) { \
    LOOP(n) { \
        u64 o = i / inner; u64 j = i % inner; T m = src[o * d * inner + j]; long long best = 0; \
        for (u64 k = 1; k < d; ++k) { \
            T x = src[(o * d + k) * inner + j]; \
            if (!isnan_(m) && (isnan_(x) || x > m)) { m = x; best = (long long)k; } \
        } \
        out[i] = best; \
    } \
}
MAXARG(f32, float) MAXARG(i64, long long) MAXARG(u8, unsigned char)

extern "C" __global__ void softmax_f32(u64 n, u64 d, u64 inner, const float* src, float* out) {
    LOOP(n) {
        u64 o = i / inner; u64 j = i % inner;
        float m = __int_as_float(0xff800000);
        for (u64 k = 0; k < d; ++k) m = fmaxf(m, src[(o * d + k) * inner + j]);
        float s = 0.0f;
        for (u64 k = 0; k < d; ++k) { float e = expf(src[(o * d + k) * inner + j] - m); out[(o * d + k) * inner + j] = e; s += e; }
        for (u64 k = 0; k < d; ++k) out[(o * d + k) * inner + j] /= s;
    }
}

// One thread per row of a contiguous [rows, d]; w and b are contiguous [d] when has_w / has_b.
extern "C" __global__ void layer_norm_f32(u64 rows, u64 d, const float* x, const float* w, const float* b,
                                          float* out, float eps, int has_w, int has_b) {
    LOOP(rows) {
        const float* r = x + i * d; float* y = out + i * d;
        float mean = 0.0f;
        for (u64 k = 0; k < d; ++k) mean += r[k];
        mean /= (float)d;
        float var = 0.0f;
        for (u64 k = 0; k < d; ++k) { float c = r[k] - mean; var += c * c; }
        var /= (float)d;
        float inv = 1.0f / sqrtf(var + eps);
        for (u64 k = 0; k < d; ++k) {
            float v = (r[k] - mean) * inv;
            if (has_w) v *= w[k];
            if (has_b) v += b[k];
            y[k] = v;
        }
    }
}
