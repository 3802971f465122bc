/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kshim.h: the small part of the Linux kernel API that drm_mm.c, drm_buddy.c and lib/rbtree.c
 * use, written for user space (bench/alloc only). Every other shim header includes this one.
 * Not kernel code: written here from the kernel's documented semantics; the kernel sources
 * themselves are extracted from linux-source-6.1 at build time into build/bench/linux/.
 */
#ifndef KSHIM_H
#define KSHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64; /* as on x86-64 kernels (int-ll64) */
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef unsigned int gfp_t;

/* ---- compiler ---- */
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define noinline __attribute__((noinline))
#define __maybe_unused __attribute__((unused))
#define __must_check __attribute__((warn_unused_result))
#define __init
#define __exit
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val) (*(volatile __typeof__(x) *)&(x) = (val))
#define barrier() __asm__ __volatile__("" ::: "memory")

/* ---- container_of, errors ---- */
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define MAX_ERRNO 4095
#define EINVAL 22
#define ENOMEM 12
#define ENOSPC 28
#define IS_ERR_VALUE(x) unlikely((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error)
{
    return (void *)error;
}
static inline long PTR_ERR(const void *ptr)
{
    return (long)ptr;
}
static inline bool IS_ERR(const void *ptr)
{
    return IS_ERR_VALUE((unsigned long)ptr);
}

/* ---- bugs and warnings: report, never stop the benchmark silently ---- */
#define BUG()                                                                                      \
    do {                                                                                           \
        fprintf(stderr, "kshim: BUG at %s:%d\n", __FILE__, __LINE__);                              \
        abort();                                                                                   \
    } while (0)
#define BUG_ON(c)                                                                                  \
    do {                                                                                           \
        if (unlikely(c))                                                                           \
            BUG();                                                                                 \
    } while (0)
#define WARN_ON(c)                                                                                 \
    ({                                                                                             \
        int __w = !!(c);                                                                           \
        if (unlikely(__w))                                                                         \
            fprintf(stderr, "kshim: WARN_ON(%s) at %s:%d\n", #c, __FILE__, __LINE__);              \
        unlikely(__w);                                                                             \
    })
#define WARN(c, ...)                                                                               \
    ({                                                                                             \
        int __w = !!(c);                                                                           \
        if (unlikely(__w)) {                                                                       \
            fprintf(stderr, "kshim: WARN at %s:%d: ", __FILE__, __LINE__);                         \
            fprintf(stderr, __VA_ARGS__);                                                          \
        }                                                                                          \
        unlikely(__w);                                                                             \
    })
#define WARN_ON_ONCE(c) WARN_ON(c)
#define BUILD_BUG_ON(c) ((void)sizeof(char[1 - 2 * !!(c)]))
#define BUILD_BUG_ON_INVALID(e) ((void)(sizeof((__force long)(e))))
#define __force

/* ---- arithmetic ---- */
#define min(a, b)                                                                                  \
    ({                                                                                             \
        __typeof__(a) _a = (a);                                                                    \
        __typeof__(b) _b = (b);                                                                    \
        _a < _b ? _a : _b;                                                                         \
    })
#define max(a, b)                                                                                  \
    ({                                                                                             \
        __typeof__(a) _a = (a);                                                                    \
        __typeof__(b) _b = (b);                                                                    \
        _a > _b ? _a : _b;                                                                         \
    })
#define min_t(t, a, b) min((t)(a), (t)(b))
#define max_t(t, a, b) max((t)(a), (t)(b))
#define __round_mask(x, y) ((__typeof__(x))((y)-1))
#define round_up(x, y) ((((x)-1) | __round_mask(x, y)) + 1)
#define round_down(x, y) ((x) & ~__round_mask(x, y))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a)-1)) == 0)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BIT(n) (1UL << (n))
#define BIT_ULL(n) (1ULL << (n))
#define GENMASK_ULL(h, l) (((~0ULL) << (l)) & (~0ULL >> (63 - (h))))
#define U64_MAX UINT64_MAX
#define S64_MAX INT64_MAX

static inline int fls(unsigned int x)
{
    return x ? 32 - __builtin_clz(x) : 0;
}
static inline int fls64(u64 x)
{
    return x ? 64 - __builtin_clzll(x) : 0;
}
#define ilog2(n) (fls64((u64)(n)) - 1)
static inline bool is_power_of_2(unsigned long n)
{
    return n != 0 && (n & (n - 1)) == 0;
}
static inline unsigned long roundup_pow_of_two(unsigned long n)
{
    return n <= 1 ? 1 : 1UL << fls64(n - 1);
}
static inline unsigned long hweight64(u64 w)
{
    return (unsigned long)__builtin_popcountll(w);
}
static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
    *remainder = dividend % divisor;
    return dividend / divisor;
}
static inline u64 div64_u64(u64 dividend, u64 divisor)
{
    return dividend / divisor;
}

/* ---- bit operations on unsigned long flags ---- */
static inline void __set_bit(long nr, volatile unsigned long *addr)
{
    *addr |= 1UL << nr;
}
static inline void __clear_bit(long nr, volatile unsigned long *addr)
{
    *addr &= ~(1UL << nr);
}
static inline void clear_bit_unlock(long nr, volatile unsigned long *addr)
{
    *addr &= ~(1UL << nr);
}
static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
    return (*addr >> nr) & 1;
}

/* ---- memory: kmalloc and kmem_cache are malloc ---- */
#define GFP_KERNEL 0u
#define GFP_NOWAIT 0u
#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
static inline void *kmalloc(size_t n, gfp_t f)
{
    (void)f;
    return malloc(n);
}
static inline void *kzalloc(size_t n, gfp_t f)
{
    (void)f;
    return calloc(1, n);
}
static inline void *kmalloc_array(size_t n, size_t size, gfp_t f)
{
    (void)f;
    return n && size > SIZE_MAX / n ? NULL : malloc(n * size);
}
static inline void *kcalloc(size_t n, size_t size, gfp_t f)
{
    (void)f;
    return calloc(n, size);
}
static inline void kfree(const void *p)
{
    free((void *)p);
}

struct kmem_cache {
    size_t size;
};
static inline struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
                                                   unsigned long flags, void *ctor)
{
    (void)name;
    (void)align;
    (void)flags;
    (void)ctor;
    struct kmem_cache *c = malloc(sizeof *c);
    if (c)
        c->size = size;
    return c;
}
#define KMEM_CACHE(s, flags)                                                                       \
    kmem_cache_create(#s, sizeof(struct s), __alignof__(struct s), (flags), NULL)
static inline void *kmem_cache_alloc(struct kmem_cache *c, gfp_t f)
{
    (void)f;
    return malloc(c->size);
}
static inline void *kmem_cache_zalloc(struct kmem_cache *c, gfp_t f)
{
    (void)f;
    return calloc(1, c->size);
}
static inline void kmem_cache_free(struct kmem_cache *c, void *p)
{
    (void)c;
    free(p);
}
static inline void kmem_cache_destroy(struct kmem_cache *c)
{
    free(c);
}
static inline void kmemleak_update_trace(const void *p)
{
    (void)p;
}

/* ---- scheduling, modules, exports, locks ---- */
static inline void cond_resched(void)
{
}
static inline void might_sleep(void)
{
}
#define EXPORT_SYMBOL(s)
#define EXPORT_SYMBOL_GPL(s)
#define MODULE_DESCRIPTION(s)
#define MODULE_LICENSE(s)
#define MODULE_AUTHOR(s)
/* A module's init runs before main(), as it would at module load. */
#define module_init(fn)                                                                            \
    static void __attribute__((constructor)) kshim_init_##fn(void)                                 \
    {                                                                                              \
        if (fn())                                                                                  \
            abort();                                                                               \
    }
#define module_exit(fn)                                                                            \
    static void __attribute__((destructor)) kshim_exit_##fn(void)                                  \
    {                                                                                              \
        fn();                                                                                      \
    }
typedef struct {
    int unused;
} spinlock_t;

/* ---- RCU: single-threaded here, so plain stores ---- */
#define rcu_assign_pointer(p, v) WRITE_ONCE((p), (v))
#define RCU_INIT_POINTER(p, v) ((p) = (v))
#define rcu_dereference_raw(p) READ_ONCE(p)

#endif
