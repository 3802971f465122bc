// SPDX-License-Identifier: Apache-2.0
// cmn_param.vh: stops elaboration on an illegal parameter value, naming the instance.
// Use inside a generate-if:  if (Bad) begin : g_bad_x `CMN_PARAM_ERROR("why") end
// Icarus 11 has no elaboration-time $error, so there the check fires at time 0 instead.
`ifndef CMN_PARAM_VH
`define CMN_PARAM_VH
`ifdef __ICARUS__
`define CMN_PARAM_ERROR(MSG) initial $fatal(1, MSG);
`else
`define CMN_PARAM_ERROR(MSG) $error(MSG);
`endif
`endif
