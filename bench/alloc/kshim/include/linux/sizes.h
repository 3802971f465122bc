/* SPDX-License-Identifier: Apache-2.0 */
/* linux/sizes.h for user space. */
#include <linux/kshim.h>
#define SZ_4K 0x00001000
#define SZ_64K 0x00010000
#define SZ_1M 0x00100000
#define SZ_2M 0x00200000
#define SZ_1G 0x40000000
