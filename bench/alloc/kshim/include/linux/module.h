/* SPDX-License-Identifier: Apache-2.0 */
/* linux/module.h for user space: everything bench/alloc needs is in kshim.h. */
#include <linux/kshim.h>
