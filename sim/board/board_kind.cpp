/* SPDX-License-Identifier: Apache-2.0 */
// board_kind.cpp: the factory of one board kind, compiled once per kind that is built, with
//   -DGR_BOARD_VTOP=Vboard_<kind>  -DGR_BOARD_FACTORY=gr_board_new_<kind>
// so that each Verilated wrapper (its own model class) gets its own BoardImpl instantiation.
#include "board_impl.h"

#define GR_BOARD_STR2(x) #x
#define GR_BOARD_STR(x) GR_BOARD_STR2(x)
#include GR_BOARD_STR(GR_BOARD_VTOP.h)

namespace gr {

Board *GR_BOARD_FACTORY(const BoardSettings &s)
{
    return new BoardImpl<GR_BOARD_VTOP>(s);
}

} // namespace gr
