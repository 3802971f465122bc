// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_csr_block: self-checking unit test of csr_block (BAR0 registers, soft reset, interrupts,
// the fields it hands to the memory controller) under Icarus 11 and Verilator 5.006 --timing,
// with seeded random AXI4-Lite backpressure.
//
// Output is TAP: a "1..N" plan, a "# seed=S" line, then one "ok N - name" / "not ok N - name"
// per check (N depends on the register map, never on the seed). Exits through $fatal when a
// check failed.
// Plusargs: +seed=N (default 1), +wave=<file> to dump waveforms (Icarus: add -fst after the
// .vvp for FST, else VCD; Verilator: FST, when built with UNIT_TRACE=1, i.e. --trace-fst).
// Build inputs: csr_map.vh, the register map printed by gen_csr_map from the table regtool
// generates (host/lib/gr_regdesc.c), on the include path; define REGMAP_HASH, the host's
// GR_REGMAP_HASH (host/include/gpuref/gr_regmap.h). tb/tb.mk provides both.
//
// How it drives: the TB changes its inputs to the DUT at the falling clock edge and samples at
// the rising edge, so neither simulator can race. One AXI4-Lite master task (axil_run) issues
// a batch of writes and reads with the AW, W and AR streams independent (AW or W first, reads
// issued while writes are outstanding, several reads in flight), each item after a random
// gap, and BREADY/RREADY stalled at random. A monitor checks the handshake rules every cycle.
// A reference model built from the generated map (access kind of every bit) predicts every
// response and read value; hardware-driven fields read the inputs the TB drives. The same
// seed gives the same cycle-by-cycle run in both simulators.
//
// Written by hand, because the generated table does not carry them: which csr_block port
// drives or receives each hardware field (hw_value, ports_match), the interrupt sources and
// the soft reset (csr_block's own logic), and the VPR lock (swwel in gpu_regs.rdl).
module tb_csr_block;
    localparam integer AddrBits = 16;
    localparam [7:0]   BOARD_ID = 8'h5A;
    localparam [23:0]  BUILD_STAMP = 24'h123456;
    localparam [31:0]  BUILD_DATE = 32'h20261126;
`ifdef REGMAP_HASH
    localparam [31:0]  EXP_REGMAP = `REGMAP_HASH;
    localparam         HAVE_REGMAP = 1'b1;
`else
    localparam [31:0]  EXP_REGMAP = 32'h0;
    localparam         HAVE_REGMAP = 1'b0;
`endif
`include "csr_map.vh"
    localparam integer PLAN = 62 + MAP_NREGS;  // checks printed: one reset value per register
    localparam integer XFER_TIMEOUT = 2000;     // cycles one transaction may take
    localparam integer RANDOM_OPS = 3000;
    localparam integer RACES = 150;             // hardware set vs W1C clear races
    localparam [31:0]  MAGIC = 32'h47505552;
    localparam [31:0]  VERSION = 32'h00020000;
    localparam [1:0]   OKAY = 2'b00;
    localparam [1:0]   SLVERR = 2'b10;
    // Interrupt sources, one bit each in IRQ_STATE / IRQ_ENABLE / IRQ_TEST (csr_block wiring).
    localparam integer IRQ_RESET_DONE = 0;
    localparam integer IRQ_MC_FAULT = 1;

    // ---- DUT ------------------------------------------------------------------------------
    logic                clk = 1'b0;
    logic                rst = 1'b1;
    logic [AddrBits-1:0] awaddr = 16'h0;
    logic [2:0]          awprot = 3'd0;
    logic                awvalid = 1'b0;
    wire                 awready;
    logic [31:0]         wdata = 32'h0;
    logic [3:0]          wstrb = 4'h0;
    logic                wvalid = 1'b0;
    wire                 wready;
    wire  [1:0]          bresp;
    wire                 bvalid;
    logic                bready = 1'b0;
    logic [AddrBits-1:0] araddr = 16'h0;
    logic [2:0]          arprot = 3'd0;
    logic                arvalid = 1'b0;
    wire                 arready;
    wire  [31:0]         rdata;
    wire  [1:0]          rresp;
    wire                 rvalid;
    logic                rready = 1'b0;
    logic                idle = 1'b1;
    wire                 soft_rst;
    wire                 irq;
    // Hardware-driven fields: inputs the TB sets (hw_randomize) and the model reads back.
    logic [47:0] hw_vram = 48'h0;
    logic [31:0] hw_ap = 32'h0;
    logic        fault_irq = 1'b0;  // IRQ source pulse
    logic        fault_set = 1'b0;  // MC_FAULT_STATUS.VALID set pulse
    logic [2:0]  hw_ftype = 3'd0, hw_fsource = 3'd0;
    logic        hw_fwrite = 1'b0;
    logic [47:0] hw_faddr = 48'h0;
    logic [31:0] hw_fcount = 32'h0, hw_hits = 32'h0, hw_misses = 32'h0;
    logic        hw_pbusy = 1'b0, hw_pdone = 1'b0, hw_pfault = 1'b0, hw_psystem = 1'b0;
    logic        hw_pcache = 1'b0;
    logic [2:0]  hw_pftype = 3'd0;
    logic [4:0]  hw_pshift = 5'd0;
    logic [51:0] hw_pa = 52'h0;
    logic        hw_didle = 1'b0, hw_dpre = 1'b0, hw_dhung = 1'b0, hw_dfaulted = 1'b0;
    logic        hw_dres = 1'b0, hw_dfwrite = 1'b0;
    logic [3:0]  hw_dstate = 4'd0, hw_dftype = 4'd0;
    logic [2:0]  hw_dfmmu = 3'd0;
    logic [15:0] hw_dhead = 16'h0, hw_dsh = 16'h0, hw_dst = 16'h0, hw_dfentry = 16'h0;
    logic [31:0] hw_dfence = 32'h0, hw_dsoff = 32'h0, hw_dsdone = 32'h0, hw_dbusy = 32'h0;
    logic [31:0] hw_dstalls = 32'h0, hw_dcmds = 32'h0, hw_dlast = 32'h0;
    logic [63:0] hw_dfaddr = 64'h0, hw_dts = 64'h0, hw_dbytes = 64'h0;
    // Fields csr_block hands to the memory controller.
    wire  [19:0] ap_base_page, vpr_base_page, vpr_limit_page, mmu_root_page;
    wire         vpr_enable, fault_valid, mmu_enable, mmu_inval, probe_go, probe_write;
    wire         probe_physical;
    wire  [47:0] probe_va;
    // Fields csr_block hands to the DMA engine.
    wire         dma_enable, dma_preempt, dma_reset, dma_ts_rd;
    wire  [63:0] dma_ring_base, dma_fence_addr;
    wire  [3:0]  dma_ring_log2;
    wire  [15:0] dma_ring_tail;
    wire  [31:0] dma_preempt_fence, dma_watchdog;

    csr_block #(
        .AddrBits(AddrBits),
        .BoardId(BOARD_ID),
        .BuildStamp(BUILD_STAMP),
        .BuildDate(BUILD_DATE)
    ) dut (
        .clk_i(clk), .rst_i(rst),
        .s_csr_awaddr_i(awaddr), .s_csr_awprot_i(awprot),
        .s_csr_awvalid_i(awvalid), .s_csr_awready_o(awready),
        .s_csr_wdata_i(wdata), .s_csr_wstrb_i(wstrb),
        .s_csr_wvalid_i(wvalid), .s_csr_wready_o(wready),
        .s_csr_bresp_o(bresp), .s_csr_bvalid_o(bvalid), .s_csr_bready_i(bready),
        .s_csr_araddr_i(araddr), .s_csr_arprot_i(arprot),
        .s_csr_arvalid_i(arvalid), .s_csr_arready_o(arready),
        .s_csr_rdata_o(rdata), .s_csr_rresp_o(rresp),
        .s_csr_rvalid_o(rvalid), .s_csr_rready_i(rready),
        .idle_i(idle),
        .soft_rst_o(soft_rst),
        .irq_o(irq),
        .mc_vram_bytes_i(hw_vram),
        .mc_ap_bytes_i(hw_ap),
        .mc_ap_base_page_o(ap_base_page),
        .vpr_base_page_o(vpr_base_page),
        .vpr_limit_page_o(vpr_limit_page),
        .vpr_enable_o(vpr_enable),
        .mc_fault_irq_i(fault_irq),
        .mc_fault_set_i(fault_set),
        .mc_fault_valid_o(fault_valid),
        .mc_fault_type_i(hw_ftype),
        .mc_fault_source_i(hw_fsource),
        .mc_fault_write_i(hw_fwrite),
        .mc_fault_addr_i(hw_faddr),
        .mc_fault_count_i(hw_fcount),
        .mmu_enable_o(mmu_enable),
        .mmu_root_page_o(mmu_root_page),
        .mmu_invalidate_o(mmu_inval),
        .mmu_tlb_hits_i(hw_hits),
        .mmu_tlb_misses_i(hw_misses),
        .probe_va_o(probe_va),
        .probe_go_o(probe_go),
        .probe_write_o(probe_write),
        .probe_physical_o(probe_physical),
        .probe_busy_i(hw_pbusy),
        .probe_done_i(hw_pdone),
        .probe_fault_i(hw_pfault),
        .probe_fault_type_i(hw_pftype),
        .probe_system_i(hw_psystem),
        .probe_cacheable_i(hw_pcache),
        .probe_page_shift_i(hw_pshift),
        .probe_pa_i(hw_pa),
        .dma_fence_irq_i(1'b0),
        .dma_preempted_irq_i(1'b0),
        .dma_fault_irq_i(1'b0),
        .dma_enable_o(dma_enable),
        .dma_preempt_o(dma_preempt),
        .dma_reset_o(dma_reset),
        .dma_idle_i(hw_didle),
        .dma_preempted_i(hw_dpre),
        .dma_hung_i(hw_dhung),
        .dma_faulted_i(hw_dfaulted),
        .dma_resetting_i(hw_dres),
        .dma_state_i(hw_dstate),
        .dma_ring_base_o(dma_ring_base),
        .dma_ring_log2_o(dma_ring_log2),
        .dma_ring_head_i(hw_dhead),
        .dma_ring_tail_o(dma_ring_tail),
        .dma_fence_addr_o(dma_fence_addr),
        .dma_completed_fence_i(hw_dfence),
        .dma_preempt_fence_o(dma_preempt_fence),
        .dma_stop_head_i(hw_dsh),
        .dma_stop_tail_i(hw_dst),
        .dma_stop_offset_i(hw_dsoff),
        .dma_stop_done_i(hw_dsdone),
        .dma_watchdog_o(dma_watchdog),
        .dma_fault_type_i(hw_dftype),
        .dma_fault_mmu_type_i(hw_dfmmu),
        .dma_fault_write_i(hw_dfwrite),
        .dma_fault_entry_i(hw_dfentry),
        .dma_fault_addr_i(hw_dfaddr),
        .dma_ts_lo_read_o(dma_ts_rd),
        .dma_timestamp_i(hw_dts),
        .dma_perf_busy_i(hw_dbusy),
        .dma_perf_bytes_i(hw_dbytes),
        .dma_perf_stalls_i(hw_dstalls),
        .dma_perf_cmds_i(hw_dcmds),
        .dma_perf_last_cmd_i(hw_dlast)
    );

    initial forever #5 clk = ~clk;

    integer cyc = 0;  // rising edges since time 0
    always @(posedge clk) cyc <= cyc + 1;

    // ---- seed, waves, random numbers (xorshift64*), TAP checks: the kit --------------
`define TB_TOP tb_csr_block
`include "tb/unit/common/tb_kit.svh"

    // Diagnostics: the first 40 are printed, later ones only counted.
    integer n_notes = 0;
    task automatic note(input string msg);
        n_notes = n_notes + 1;
        if (n_notes <= 40) $display("#   %s (cycle %0d)", msg, cyc);
    endtask

    // ---- hardware-driven fields -----------------------------------------------------------
    // New values on every input that feeds a read-only field (at a falling edge).
    task automatic hw_randomize;
        logic [31:0] a, b, c;
        rnd32(a); rnd32(b); rnd32(c);
        hw_vram = {a[15:0], b};
        hw_faddr = {a[31:16], c};
        rnd32(a); rnd32(b);
        hw_pa = {a[19:0], b};
        hw_ftype = a[22:20];
        hw_fsource = a[25:23];
        hw_fwrite = a[26];
        hw_pbusy = a[27];
        hw_pdone = a[28];
        hw_pfault = a[29];
        hw_psystem = a[30];
        hw_pcache = a[31];
        rnd32(a);
        hw_pftype = a[2:0];
        hw_pshift = a[7:3] ^ a[12:8] ^ a[17:13] ^ a[22:18] ^ a[27:23] ^ {a[31:28], 1'b0};
        rnd32(hw_ap);
        rnd32(hw_fcount);
        rnd32(hw_hits);
        rnd32(hw_misses);
        rnd32(a); rnd32(b); rnd32(c);
        {hw_didle, hw_dpre, hw_dhung, hw_dfaulted, hw_dres, hw_dfwrite} = a[5:0];
        hw_dstate = a[9:6];
        hw_dftype = a[13:10];
        hw_dfmmu = a[16:14];
        hw_dhead = b[15:0];
        hw_dfentry = b[31:16];
        hw_dsh = c[15:0];
        hw_dst = c[31:16];
        rnd32(hw_dfence); rnd32(hw_dsoff); rnd32(hw_dsdone); rnd32(hw_dbusy);
        rnd32(hw_dstalls); rnd32(hw_dcmds); rnd32(hw_dlast);
        rnd32(a); rnd32(b);
        hw_dfaddr = {a, b};
        rnd32(a); rnd32(b);
        hw_dts = {a, b};
        rnd32(a); rnd32(b);
        hw_dbytes = {a, b};
    endtask

    // What a register's hardware-driven (HW_RO) bits read, from the inputs above; hw_known
    // says whether the TB knows the register at all.
    function automatic logic [31:0] hw_value(input integer i);
        logic [31:0] v;
        logic [15:0] o;
        v = 32'h0;
        o = map_off(i);  // (in a case expression Verilator would call it once per item)
        case (o)
            R_ID_BUILD:          v = {BOARD_ID, BUILD_STAMP};
            R_ID_DATE:           v = BUILD_DATE;
            R_MC_VRAM_SIZE_LO:   v = hw_vram[31:0];
            R_MC_VRAM_SIZE_HI:   v = {16'h0, hw_vram[47:32]};
            R_MC_AP_SIZE:        v = hw_ap;
            R_MC_FAULT_STATUS:   begin
                v[6:4] = hw_ftype;
                v[10:8] = hw_fsource;
                v[12] = hw_fwrite;
            end
            R_MC_FAULT_ADDR_LO:  v = hw_faddr[31:0];
            R_MC_FAULT_ADDR_HI:  v = {16'h0, hw_faddr[47:32]};
            R_MC_FAULT_COUNT:    v = hw_fcount;
            R_MMU_TLB_HITS:      v = hw_hits;
            R_MMU_TLB_MISSES:    v = hw_misses;
            R_MMU_PROBE_STATUS:  begin
                v[0] = hw_pbusy;
                v[1] = hw_pdone;
                v[2] = hw_pfault;
                v[6:4] = hw_pftype;
                v[8] = hw_psystem;
                v[9] = hw_pcache;
                v[20:16] = hw_pshift;
            end
            R_MMU_PROBE_PA_LO:   v = hw_pa[31:0];
            R_MMU_PROBE_PA_HI:   v = {12'h0, hw_pa[51:32]};
            R_DMA_STATUS:        v = {20'h0, hw_dstate, 3'h0, hw_dres, hw_dfaulted, hw_dhung,
                                      hw_dpre, hw_didle};
            R_DMA_RING_HEAD:     v = {16'h0, hw_dhead};
            R_DMA_COMPLETED_FENCE: v = hw_dfence;
            R_DMA_STOP_HEAD:     v = {16'h0, hw_dsh};
            R_DMA_STOP_TAIL:     v = {16'h0, hw_dst};
            R_DMA_STOP_OFFSET:   v = hw_dsoff;
            R_DMA_STOP_DONE:     v = hw_dsdone;
            R_DMA_FAULT_STATUS:  v = {hw_dfentry, 7'h0, hw_dfwrite, 1'b0, hw_dfmmu, hw_dftype};
            R_DMA_FAULT_ADDR_LO: v = hw_dfaddr[31:0];
            R_DMA_FAULT_ADDR_HI: v = hw_dfaddr[63:32];
            R_DMA_TIMESTAMP_LO:  v = hw_dts[31:0];
            R_DMA_TIMESTAMP_HI:  v = hw_dts[63:32];
            R_DMA_PERF_BUSY:     v = hw_dbusy;
            R_DMA_PERF_BYTES_LO: v = hw_dbytes[31:0];
            R_DMA_PERF_BYTES_HI: v = hw_dbytes[63:32];
            R_DMA_PERF_STALLS:   v = hw_dstalls;
            R_DMA_PERF_CMDS:     v = hw_dcmds;
            R_DMA_PERF_LAST_CMD: v = hw_dlast;
            default: ;
        endcase
        return v;
    endfunction
    function automatic logic hw_known(input integer i);
        logic [15:0] o;
        o = map_off(i);
        case (o)
            R_ID_BUILD, R_ID_DATE, R_MC_VRAM_SIZE_LO, R_MC_VRAM_SIZE_HI, R_MC_AP_SIZE, R_MC_FAULT_STATUS,
            R_MC_FAULT_ADDR_LO, R_MC_FAULT_ADDR_HI, R_MC_FAULT_COUNT, R_MMU_TLB_HITS,
            R_MMU_TLB_MISSES, R_MMU_PROBE_STATUS, R_MMU_PROBE_PA_LO, R_MMU_PROBE_PA_HI,
            R_DMA_STATUS, R_DMA_RING_HEAD, R_DMA_COMPLETED_FENCE, R_DMA_STOP_HEAD,
            R_DMA_STOP_TAIL, R_DMA_STOP_OFFSET, R_DMA_STOP_DONE, R_DMA_FAULT_STATUS,
            R_DMA_FAULT_ADDR_LO, R_DMA_FAULT_ADDR_HI, R_DMA_TIMESTAMP_LO, R_DMA_TIMESTAMP_HI,
            R_DMA_PERF_BUSY, R_DMA_PERF_BYTES_LO, R_DMA_PERF_BYTES_HI, R_DMA_PERF_STALLS,
            R_DMA_PERF_CMDS, R_DMA_PERF_LAST_CMD:
                return 1'b1;
            default: return 1'b0;
        endcase
    endfunction

    // ---- AXI4-Lite master -----------------------------------------------------------------
    // axil_run issues up to QMAX writes and QMAX reads at once: the AW, W and AR streams each
    // go in order, independently, each item after its own gap, without waiting for responses;
    // B and R are taken in order with BREADY/RREADY stalled at random.
    localparam integer QMAX = 8;
    integer stall_pct = 0;  // chance in percent that BREADY/RREADY is low in a cycle
    integer max_dly = 0;    // largest random gap before AWVALID, WVALID, ARVALID
    // Races: at step hook_step axil_run raises idle_i (hook_kind 0) or pulses mc_fault_irq_i
    // (1) or mc_fault_set_i (2) for one cycle.
    integer hook_step = -1;
    integer hook_kind = 0;
    logic        hung = 1'b0;  // a transaction timed out; later ones are skipped
    integer      q_nw = 0, q_nr = 0;
    logic [15:0] q_wa [0:QMAX-1];
    logic [31:0] q_wd [0:QMAX-1];
    logic [3:0]  q_ws [0:QMAX-1];
    integer      q_aw_gap [0:QMAX-1];
    integer      q_w_gap [0:QMAX-1];
    logic [15:0] q_ra [0:QMAX-1];
    integer      q_ar_gap [0:QMAX-1];
    logic [1:0]  q_bresp [0:QMAX-1];
    logic [1:0]  q_rresp [0:QMAX-1];
    logic [31:0] q_rdata [0:QMAX-1];
    logic        x_overlap;  // a read address was taken while a write response was due
    logic        x_rpipe;    // a read address was taken while an earlier read was unanswered
    logic        x_extra;    // a response came that nothing asked for
    logic        x_done;     // every response came
    // Results of a single write and/or read (axil_xfer, axil_write, axil_read).
    logic        x_bseen, x_rseen;
    logic [1:0]  x_bresp, x_rresp;
    logic [31:0] x_rdata;

    // The master and the model-checked single accesses (rd, wr) run in one service process
    // that the callers hand each operation to, in zero time. (Verilator inlines every task
    // and function at every call: called inline from the ~150 places that access a register,
    // they made a model of 14 MB of C++ that took minutes to compile.)
    // Call and return at a falling edge; every VALID and READY is low on return.
    localparam integer OP_RUN = 0;  // axil_exec on the batch in q_*
    localparam integer OP_RD = 1;   // read svc_a, check against the model
    localparam integer OP_WR = 2;   // write svc_d to svc_a with strobes svc_s, through the model
    integer      svc_op = OP_RUN;
    logic [15:0] svc_a = 16'h0;
    logic [31:0] svc_d = 32'h0;
    logic [3:0]  svc_s = 4'h0;
    logic        svc_ok = 1'b0;
    logic        run_req = 1'b0, run_ack = 1'b0;
    task automatic svc_call(input integer op);
        svc_op = op;
        run_req = 1'b1;
        wait (run_ack);
        run_req = 1'b0;
        wait (!run_ack);
    endtask
    task automatic axil_run;
        svc_call(OP_RUN);
    endtask
    initial forever begin : service
        wait (run_req);
        svc_exec();
        run_ack = 1'b1;
        wait (!run_req);
        run_ack = 1'b0;
    end

    task automatic axil_exec;
        integer step, r, aw_i, w_i, ar_i, b_i, r_i, aw_wait, w_wait, ar_wait;
        logic [31:0] junk;
        aw_i = 0;
        w_i = 0;
        ar_i = 0;
        b_i = 0;
        r_i = 0;
        aw_wait = q_aw_gap[0];
        w_wait = q_w_gap[0];
        ar_wait = q_ar_gap[0];
        x_overlap = 1'b0;
        x_rpipe = 1'b0;
        x_extra = 1'b0;
        step = 0;
        while (!hung && (b_i < q_nw || r_i < q_nr || (hook_step >= 0 && step <= hook_step + 1)))
        begin
            if (hook_step >= 0 && step == hook_step) begin
                if (hook_kind == 0) idle = 1'b1;
                if (hook_kind == 1) fault_irq = 1'b1;
                if (hook_kind == 2) fault_set = 1'b1;
            end else begin
                fault_irq = 1'b0;
                fault_set = 1'b0;
            end
            // Payload is random junk while VALID is low: the DUT must not take it.
            rnd32(junk);
            awvalid = aw_i < q_nw && aw_wait == 0;
            awaddr = junk[15:0];
            if (awvalid) awaddr = q_wa[aw_i];
            awprot = junk[18:16];
            rnd32(junk);
            wvalid = w_i < q_nw && w_wait == 0;
            wdata = junk;
            wstrb = junk[31:28];
            if (wvalid) begin
                wdata = q_wd[w_i];
                wstrb = q_ws[w_i];
            end
            rnd32(junk);
            arvalid = ar_i < q_nr && ar_wait == 0;
            araddr = junk[15:0];
            if (arvalid) araddr = q_ra[ar_i];
            arprot = junk[18:16];
            rndn(100, r);
            bready = r >= stall_pct;
            rndn(100, r);
            rready = r >= stall_pct;
            @(posedge clk);
            if (awvalid && awready) begin
                aw_i = aw_i + 1;
                if (aw_i < q_nw) aw_wait = q_aw_gap[aw_i];
            end else if (aw_wait > 0) aw_wait = aw_wait - 1;
            if (wvalid && wready) begin
                w_i = w_i + 1;
                if (w_i < q_nw) w_wait = q_w_gap[w_i];
            end else if (w_wait > 0) w_wait = w_wait - 1;
            if (arvalid && arready) begin
                if (b_i < q_nw) x_overlap = 1'b1;
                if (r_i < ar_i) x_rpipe = 1'b1;
                ar_i = ar_i + 1;
                if (ar_i < q_nr) ar_wait = q_ar_gap[ar_i];
            end else if (ar_wait > 0) ar_wait = ar_wait - 1;
            if (bvalid && bready) begin
                if (b_i >= q_nw) x_extra = 1'b1;
                else q_bresp[b_i] = bresp;
                b_i = b_i + 1;
            end
            if (rvalid && rready) begin
                if (r_i >= q_nr) x_extra = 1'b1;
                else begin
                    q_rresp[r_i] = rresp;
                    q_rdata[r_i] = rdata;
                end
                r_i = r_i + 1;
            end
            step = step + 1;
            if (step > XFER_TIMEOUT) begin
                hung = 1'b1;
                note($sformatf("transaction timed out: %0d/%0d writes, %0d/%0d reads answered",
                               b_i, q_nw, r_i, q_nr));
            end
            @(negedge clk);
        end
        awvalid = 1'b0;
        wvalid = 1'b0;
        arvalid = 1'b0;
        bready = 1'b0;
        rready = 1'b0;
        fault_irq = 1'b0;
        fault_set = 1'b0;
        x_done = b_i == q_nw && r_i == q_nr;
        if (x_extra) note("response without a request");
    endtask

    // One write, one read, or both at once, each after its own delay.
    task automatic xfer_setup(input logic do_w, input logic [15:0] wa, input logic [31:0] wd,
                              input logic [3:0] ws, input logic do_r, input logic [15:0] ra,
                              input integer aw_dly, input integer w_dly, input integer ar_dly);
        q_nw = do_w ? 1 : 0;
        q_nr = do_r ? 1 : 0;
        q_wa[0] = wa;
        q_wd[0] = wd;
        q_ws[0] = ws;
        q_ra[0] = ra;
        q_aw_gap[0] = aw_dly;
        q_w_gap[0] = w_dly;
        q_ar_gap[0] = ar_dly;
        q_bresp[0] = 2'bxx;
        q_rresp[0] = 2'bxx;
        q_rdata[0] = 32'hxxxxxxxx;
    endtask
    task automatic xfer_results(input logic do_w, input logic do_r);
        x_bseen = do_w && x_done;
        x_rseen = do_r && x_done;
        x_bresp = q_bresp[0];
        x_rresp = q_rresp[0];
        x_rdata = q_rdata[0];
    endtask
    task automatic axil_xfer(input logic do_w, input logic [15:0] wa, input logic [31:0] wd,
                             input logic [3:0] ws, input logic do_r, input logic [15:0] ra,
                             input integer aw_dly, input integer w_dly, input integer ar_dly);
        xfer_setup(do_w, wa, wd, ws, do_r, ra, aw_dly, w_dly, ar_dly);
        axil_run();
        xfer_results(do_w, do_r);
    endtask

    task automatic axil_write(input logic [15:0] a, input logic [31:0] d, input logic [3:0] s);
        integer aw_dly, w_dly;
        rndn(max_dly + 1, aw_dly);
        rndn(max_dly + 1, w_dly);
        axil_xfer(1'b1, a, d, s, 1'b0, 16'h0, aw_dly, w_dly, 0);
    endtask
    task automatic axil_read(input logic [15:0] a);
        integer ar_dly;
        rndn(max_dly + 1, ar_dly);
        axil_xfer(1'b0, 16'h0, 32'h0, 4'h0, 1'b1, a, 0, 0, ar_dly);
    endtask

    task automatic cycles(input integer n);
        repeat (n) @(negedge clk);
    endtask

    // ---- reference model of the registers -------------------------------------------------
    // m_store keeps the bits software or hardware can change (RW, W1C, W1S); CONST bits read
    // their reset value, HW_RO bits the TB's inputs, PULSE bits zero.
    integer      word_idx [0:16383];  // register index of each word address, or -1
    logic [31:0] m_store [0:MAP_NREGS-1];
    integer      m_inval = 0, m_go = 0;  // pulses the model expects on the strobe ports
    integer      m_dpre = 0, m_dres = 0;

    function automatic integer ix(input logic [15:0] a);
        return word_idx[14'(a >> 2)];
    endfunction
    function automatic logic is_reg(input logic [15:0] a);
        return ix(a) >= 0;
    endfunction
    function automatic logic [31:0] m_live(input integer i);  // bits kept in m_store
        return map_mask(i, MAP_RW) | map_mask(i, MAP_W1C) | map_mask(i, MAP_W1S);
    endfunction
    function automatic logic [31:0] m_fields(input integer i);  // all bits of all fields
        return m_live(i) | map_mask(i, MAP_CONST) | map_mask(i, MAP_HW_RO) |
               map_mask(i, MAP_PULSE);
    endfunction
    // RW bits a lock makes read-only: VPR_CTRL.LOCK guards VPR_BASE, VPR_LIMIT and
    // VPR_CTRL.ENABLE (swwel in gpu_regs.rdl, which the generated table does not carry).
    function automatic logic [31:0] m_locked(input integer i);
        logic [15:0] o;
        if (!m_store[ix(R_VPR_CTRL)][1]) return 32'h0;
        o = map_off(i);
        case (o)
            R_VPR_BASE, R_VPR_LIMIT: return 32'hFFFFFFFF;
            R_VPR_CTRL:              return 32'h1;
            default:                 return 32'h0;
        endcase
    endfunction

    // Value the model says a read of a returns (0 for a hole).
    function automatic logic [31:0] m_read(input logic [15:0] a);
        integer i;
        i = ix(a);
        if (i < 0) return 32'h0;
        return (map_reset(i) & map_mask(i, MAP_CONST)) | (hw_value(i) & map_mask(i, MAP_HW_RO)) |
               (m_store[i] & m_live(i));
    endfunction

    function automatic logic [1:0] m_resp(input logic [15:0] a, input logic we,
                                          input logic [3:0] s);
        if (!is_reg(a)) return SLVERR;
        if (we && s != 4'hF) return SLVERR;
        return OKAY;
    endfunction

    // Applies a write to the model. A RESET_CTRL.CORE write is left to the caller, which
    // waits for the soft reset and then calls m_soft_reset.
    function automatic void m_write(input logic [15:0] a, input logic [31:0] d,
                                    input logic [3:0] s);
        integer i, st;
        logic [31:0] rw;
        logic [15:0] o;
        i = ix(a);
        o = a & 16'hFFFC;
        st = ix(R_IRQ_STATE);
        if (m_resp(a, 1'b1, s) == OKAY) begin
            rw = map_mask(i, MAP_RW) & ~m_locked(i);
            m_store[i] = (m_store[i] & ~rw) | (d & rw);
            m_store[i] = m_store[i] & ~(d & map_mask(i, MAP_W1C));
            m_store[i] = m_store[i] | (d & map_mask(i, MAP_W1S));
            // IRQ_TEST sets the IRQ_STATE bits at the same positions.
            if (o == R_IRQ_TEST) m_store[st] = m_store[st] | (d & map_mask(st, MAP_W1C));
            if (o == R_MMU_INVALIDATE && d[0]) m_inval = m_inval + 1;
            if (o == R_MMU_PROBE_CTRL && d[0]) m_go = m_go + 1;
            if (o == R_DMA_CTRL && d[1]) m_dpre = m_dpre + 1;
            if (o == R_DMA_CTRL && d[2]) m_dres = m_dres + 1;
        end
    endfunction

    // Every field back to its reset value except those a soft reset keeps (the VPR and its
    // lock: gr_hard_reset_only in the map); then RESET_DONE is set.
    function automatic void m_soft_reset();
        integer i;
        for (i = 0; i < MAP_NREGS; i = i + 1)
            m_store[i] = (map_reset(i) & ~map_kept(i)) | (m_store[i] & map_kept(i));
        m_store[ix(R_IRQ_STATE)][IRQ_RESET_DONE] = 1'b1;
    endfunction
    function automatic void m_hard_reset();
        integer i;
        for (i = 0; i < MAP_NREGS; i = i + 1) m_store[i] = map_reset(i);
    endfunction
    function automatic logic m_irq();
        return |(m_store[ix(R_IRQ_STATE)] & m_store[ix(R_IRQ_ENABLE)]);
    endfunction

    // The fields csr_block hands out equal the registers (the model's view).
    function automatic logic ports_match();
        return ap_base_page == m_store[ix(R_MC_AP_BASE)][31:12] &&
               vpr_base_page == m_store[ix(R_VPR_BASE)][31:12] &&
               vpr_limit_page == m_store[ix(R_VPR_LIMIT)][31:12] &&
               vpr_enable == m_store[ix(R_VPR_CTRL)][0] &&
               fault_valid == m_store[ix(R_MC_FAULT_STATUS)][0] &&
               mmu_enable == m_store[ix(R_MMU_CTRL)][0] &&
               mmu_root_page == m_store[ix(R_MMU_ROOT)][31:12] &&
               probe_va == {m_store[ix(R_MMU_PROBE_VA_HI)][15:0], m_store[ix(R_MMU_PROBE_VA_LO)]} &&
               probe_write == m_store[ix(R_MMU_PROBE_CTRL)][1] &&
               probe_physical == m_store[ix(R_MMU_PROBE_CTRL)][2] &&
               dma_enable == m_store[ix(R_DMA_CTRL)][0] &&
               dma_ring_base == {m_store[ix(R_DMA_RING_BASE_HI)], m_store[ix(R_DMA_RING_BASE_LO)][31:12], 12'h0} &&
               dma_ring_log2 == m_store[ix(R_DMA_RING_SIZE)][3:0] &&
               dma_ring_tail == m_store[ix(R_DMA_RING_TAIL)][15:0] &&
               dma_fence_addr == {m_store[ix(R_DMA_FENCE_ADDR_HI)], m_store[ix(R_DMA_FENCE_ADDR_LO)][31:3], 3'h0} &&
               dma_preempt_fence == m_store[ix(R_DMA_PREEMPT_FENCE)] &&
               dma_watchdog == m_store[ix(R_DMA_WATCHDOG)] &&
               soft_rst === 1'b0 && mmu_inval === 1'b0 && probe_go === 1'b0 &&
               dma_preempt === 1'b0 && dma_reset === 1'b0;
    endfunction
    task automatic note_ports;
        note($sformatf("ports: ap_base %05x vpr %05x..%05x en %b fault_valid %b mmu en %b root %05x va %012x wr %b phys %b",
                       ap_base_page, vpr_base_page, vpr_limit_page, vpr_enable, fault_valid,
                       mmu_enable, mmu_root_page, probe_va, probe_write, probe_physical));
        note($sformatf("ports: dma en %b ring %016x log2 %0d tail %04x fence %016x pfence %08x wd %08x",
                       dma_enable, dma_ring_base, dma_ring_log2, dma_ring_tail, dma_fence_addr,
                       dma_preempt_fence, dma_watchdog));
    endtask

    // The service process's work (see svc_call).
    task automatic svc_exec;
        logic [31:0] exp_d;
        logic [1:0] exp_r;
        integer d1, d2;
        exp_d = m_read(svc_a);
        exp_r = m_resp(svc_a, svc_op == OP_WR, svc_s);
        if (svc_op == OP_RD) begin
            rndn(max_dly + 1, d1);
            xfer_setup(1'b0, 16'h0, 32'h0, 4'h0, 1'b1, svc_a, 0, 0, d1);
        end else if (svc_op == OP_WR) begin
            rndn(max_dly + 1, d1);
            rndn(max_dly + 1, d2);
            xfer_setup(1'b1, svc_a, svc_d, svc_s, 1'b0, 16'h0, d1, d2, 0);
        end
        axil_exec();
        if (svc_op == OP_RD) begin
            xfer_results(1'b0, 1'b1);
            svc_ok = x_rseen && x_rresp == exp_r && x_rdata == exp_d && !x_extra;
            if (!svc_ok) note($sformatf("read %04x: %08x resp %b, model %08x resp %b", svc_a,
                                        x_rdata, x_rresp, exp_d, exp_r));
        end else if (svc_op == OP_WR) begin
            xfer_results(1'b1, 1'b0);
            m_write(svc_a, svc_d, svc_s);
            svc_ok = x_bseen && x_bresp == exp_r && !x_extra;
            if (!svc_ok) note($sformatf("write %04x=%08x strb %x: bresp %b, model %b", svc_a,
                                        svc_d, svc_s, x_bresp, exp_r));
        end
    endtask

    // Write through the model; ok when the response matched it.
    task automatic wr(input logic [15:0] a, input logic [31:0] d, input logic [3:0] s,
                      output logic ok);
        svc_a = a;
        svc_d = d;
        svc_s = s;
        svc_call(OP_WR);
        ok = svc_ok;
    endtask
    // Read checked against the model; ok when response and data matched.
    task automatic rd(input logic [15:0] a, output logic ok);
        svc_a = a;
        svc_call(OP_RD);
        ok = svc_ok;
    endtask
    // Every register read and compared with the model.
    task automatic rd_all(output logic ok);
        integer i;
        logic one;
        ok = 1'b1;
        for (i = 0; i < MAP_NREGS; i = i + 1) begin
            rd(map_off(i), one);
            ok = ok & one;
        end
    endtask
    // Every RW field written back to its reset value (nothing else is touched).
    task automatic restore_rw(output logic ok);
        integer i;
        logic one;
        ok = 1'b1;
        for (i = 0; i < MAP_NREGS; i = i + 1)
            if (map_mask(i, MAP_RW) != 32'h0 && (m_store[i] & map_mask(i, MAP_RW)) !=
                                                (map_reset(i) & map_mask(i, MAP_RW))) begin
                wr(map_off(i), map_reset(i) & map_mask(i, MAP_RW), 4'hF, one);
                ok = ok & one;
            end
    endtask

    // Waits until lvl is seen on a signal chosen by sel (0 irq, 1 soft_rst), at most n cycles;
    // returns the cycles waited, or -1.
    task automatic wait_for(input integer sel, input logic lvl, input integer n,
                            output integer waited);
        integer i;
        waited = -1;
        for (i = 0; i <= n && waited < 0; i = i + 1) begin
            if ((sel == 0 ? irq : soft_rst) === lvl) waited = i;
            else @(negedge clk);
        end
    endtask

    // One-cycle pulse on mc_fault_irq_i (which 0) or mc_fault_set_i (which 1), at a quiet
    // point; the model takes the set.
    task automatic hw_pulse(input integer which);
        if (which == 0) fault_irq = 1'b1;
        else fault_set = 1'b1;
        @(negedge clk);
        fault_irq = 1'b0;
        fault_set = 1'b0;
        if (which == 0) m_store[ix(R_IRQ_STATE)][IRQ_MC_FAULT] = 1'b1;
        else m_store[ix(R_MC_FAULT_STATUS)][0] = 1'b1;
    endtask

    // ---- random operations for the random mix ---------------------------------------------
    // A random word-aligned address that decodes to no register.
    task automatic rnd_hole(output logic [15:0] a);
        logic [31:0] v;
        rnd32(v);
        a = (v[31:16] ^ v[15:0]) & 16'hFFFC;
        if (v[0]) a = a & 16'h03FC;  // often near the registers
        while (is_reg(a)) begin
            rnd32(v);
            a = (v[31:16] ^ v[15:0]) & 16'hFFFC;
        end
    endtask
    // A random write: any register but RESET_CTRL, never VPR_CTRL.LOCK (the lock is tested
    // on its own), a hole, or a partial strobe. Data often has bit 0 set, or all ones.
    task automatic pick_write(output logic [15:0] a, output logic [31:0] d,
                              output logic [3:0] s);
        integer r, t;
        s = 4'hF;
        rnd32(d);
        rndn(8, t);
        if (t == 0) d[0] = 1'b1;
        if (t == 1) d = 32'hFFFFFFFF;
        rndn(MAP_NREGS + 4, r);
        rndn(15, t);  // drawn for every kind, so the stream does not depend on the kind
        if (r < MAP_NREGS) a = map_off(r);
        else if (r == MAP_NREGS) rnd_hole(a);
        else if (r == MAP_NREGS + 1) begin
            a = R_SCRATCH;
            s = 4'(t);
        end else begin
            a = R_IRQ_STATE;
            if (t[0]) a = R_IRQ_TEST;
        end
        if (a == R_RESET_CTRL) a = R_SCRATCH;
        if (a == R_VPR_CTRL) d[1] = 1'b0;
    endtask
    // A random read address: any register, or a hole.
    task automatic pick_read(output logic [15:0] a);
        integer r;
        rndn(MAP_NREGS + MAP_NREGS / 8 + 1, r);
        if (r >= MAP_NREGS) rnd_hole(a);
        else a = map_off(r);
    endtask

    // ---- monitors (every rising edge) -----------------------------------------------------
    logic        p_b_hold = 1'b0, p_r_hold = 1'b0;
    logic [1:0]  p_bresp = 2'b00, p_rresp = 2'b00;
    logic [31:0] p_rdata = 32'h0;
    integer      n_aw = 0, n_w = 0, n_ar = 0, n_b = 0, n_r = 0;
    integer      err_b_hold = 0, err_r_hold = 0, err_order = 0, err_x = 0;
    integer      n_soft = 0;  // rising edges with soft_rst_o high
    // irq_o is a registered level: in each cycle it equals |(IRQ_STATE & IRQ_ENABLE) of the
    // cycle before (csr_irq contract), probed inside csr_block.
    logic        p_irq_exp = 1'b0, p_irq_ok = 1'b0;
    integer      err_irq_lag = 0;
    // Strobe ports: cycles high and rising edges (a one-cycle pulse has both counts equal).
    logic        p_inval = 1'b0, p_go = 1'b0, p_dpre = 1'b0, p_dres = 1'b0;
    integer      n_inval_hi = 0, n_inval_up = 0, n_go_hi = 0, n_go_up = 0;
    integer      n_dpre_hi = 0, n_dpre_up = 0, n_dres_hi = 0, n_dres_up = 0;
    // DMA_TIMESTAMP_LO's read strobe: one cycle per read of it taken on AR.
    integer      n_ts_ar = 0, n_ts_rd = 0;
    always @(posedge clk) begin
        p_irq_exp <= |(dut.irq_state & dut.irq_enable);
        p_irq_ok <= !rst;
        if (p_irq_ok && irq !== p_irq_exp) err_irq_lag <= err_irq_lag + 1;
        p_inval <= mmu_inval;
        p_go <= probe_go;
        p_dpre <= dma_preempt;
        p_dres <= dma_reset;
        if (!rst) begin
            if (dma_preempt === 1'b1) n_dpre_hi <= n_dpre_hi + 1;
            if (dma_preempt === 1'b1 && !p_dpre) n_dpre_up <= n_dpre_up + 1;
            if (dma_reset === 1'b1) n_dres_hi <= n_dres_hi + 1;
            if (dma_reset === 1'b1 && !p_dres) n_dres_up <= n_dres_up + 1;
            if (arvalid && arready && (araddr & 16'hFFFC) == R_DMA_TIMESTAMP_LO) n_ts_ar <= n_ts_ar + 1;
            if (dma_ts_rd === 1'b1) n_ts_rd <= n_ts_rd + 1;
            if (soft_rst === 1'b1) n_soft <= n_soft + 1;
            if (mmu_inval === 1'b1) n_inval_hi <= n_inval_hi + 1;
            if (mmu_inval === 1'b1 && !p_inval) n_inval_up <= n_inval_up + 1;
            if (probe_go === 1'b1) n_go_hi <= n_go_hi + 1;
            if (probe_go === 1'b1 && !p_go) n_go_up <= n_go_up + 1;
            if ((^{awready, wready, bvalid, arready, rvalid, irq, soft_rst}) === 1'bx ||
                (^{ap_base_page, vpr_base_page, vpr_limit_page, vpr_enable, fault_valid,
                   mmu_enable, mmu_root_page, mmu_inval, probe_va, probe_go, probe_write,
                   probe_physical, dma_enable, dma_preempt, dma_reset, dma_ts_rd, dma_ring_base,
                   dma_ring_log2, dma_ring_tail, dma_fence_addr, dma_preempt_fence,
                   dma_watchdog}) === 1'bx ||
                (bvalid && (^bresp) === 1'bx) || (rvalid && (^{rdata, rresp}) === 1'bx))
                err_x <= err_x + 1;
            if (p_b_hold && (!bvalid || bresp != p_bresp)) err_b_hold <= err_b_hold + 1;
            if (p_r_hold && (!rvalid || rresp != p_rresp || rdata != p_rdata))
                err_r_hold <= err_r_hold + 1;
            if (awvalid && awready) n_aw <= n_aw + 1;
            if (wvalid && wready) n_w <= n_w + 1;
            if (arvalid && arready) n_ar <= n_ar + 1;
            // A response needs a request taken at an earlier edge.
            if (bvalid && bready) begin
                n_b <= n_b + 1;
                if (n_b >= n_aw || n_b >= n_w) err_order <= err_order + 1;
            end
            if (rvalid && rready) begin
                n_r <= n_r + 1;
                if (n_r >= n_ar) err_order <= err_order + 1;
            end
        end
        p_b_hold <= !rst && bvalid && !bready;
        p_r_hold <= !rst && rvalid && !rready;
        p_bresp <= bresp;
        p_rresp <= rresp;
        p_rdata <= rdata;
    end

    // White-box probe for the set/clear races: the cycles in which the raced bit's hardware
    // set fired (race_kind as hook_kind) and in which a W1C write of it reached the register
    // file (race_addr, race_bit).
    integer      race_kind = 0;
    logic [15:0] race_addr = 16'h0;
    logic [31:0] race_bit = 32'h0;
    integer      last_set_cyc = -1, last_clr_cyc = -1;
    always @(posedge clk) begin
        if ((race_kind == 0 && dut.u_regs.irq_state_reset_done_set_i) ||
            (race_kind == 1 && dut.u_regs.irq_state_mc_fault_set_i) ||
            (race_kind == 2 && dut.u_regs.mc_fault_status_valid_set_i))
            last_set_cyc <= cyc;
        if (dut.u_regs.req_i && dut.u_regs.we_i && !dut.u_regs.err_o &&
            (dut.u_regs.addr_i & 16'hFFFC) == race_addr && (dut.u_regs.wdata_i & race_bit) != 0)
            last_clr_cyc <= cyc;
    end

    // ---- the checks -----------------------------------------------------------------------
    initial begin : watchdog
        #(30000000);
        $display("Bail out! watchdog: simulation ran too long (seed=%0d)", seed);
        $fatal(1, "watchdog");
    end

    initial begin : main
        logic ok, ok2, all;
        logic [31:0] exp, d;
        logic [15:0] a, ra;
        logic [3:0] s;
        integer i, k, w, n, r, b, hold, bad_d, bad_r, bad_irq, bad_ovl, bad_port, n_ovl;
        integer n_pipe, n_aligned, n_lost, n_ro, n_rw, n_hw, n_src, i0, i1, i2, i3, g0, g1;
        logic [31:0] acc [0:QMAX*(QMAX+1)-1];
        logic [31:0] before_v;
        logic [31:0] irq_bits;

        tb_start(PLAN);
        $display("# tb_csr_block: csr_block AddrBits=16 BoardId=0x%02x BuildStamp=0x%06x, %0d registers",
                 BOARD_ID, BUILD_STAMP, MAP_NREGS);

        for (i = 0; i < 16384; i = i + 1) word_idx[i] = -1;
        for (i = 0; i < MAP_NREGS; i = i + 1) begin
            a = map_off(i);
            word_idx[a[15:2]] = i;
        end
        m_hard_reset();
        irq_bits = map_mask(ix(R_IRQ_STATE), MAP_W1C);
        hw_randomize();
        rst = 1'b1;
        cycles(5);
        rst = 1'b0;
        cycles(1);
        stall_pct = 30;
        max_dly = 3;

        // ---- reset values ----
        check(irq === 1'b0 && soft_rst === 1'b0 && mmu_inval === 1'b0 && probe_go === 1'b0 &&
              dma_preempt === 1'b0 && dma_reset === 1'b0 && dma_ts_rd === 1'b0,
              "after reset irq_o, soft_rst_o and the strobe ports are low");
        for (i = 0; i < MAP_NREGS; i = i + 1) begin
            rd(map_off(i), ok);
            check(ok, $sformatf("reset value: %s (0x%03x) reads 0x%08x (OKAY)", map_name(i),
                                map_off(i), m_read(map_off(i))));
        end
        axil_read(R_ID_REGMAP);
        if (!HAVE_REGMAP) note("REGMAP_HASH was not defined by the build");
        check(HAVE_REGMAP == 1'b1 && x_rdata == EXP_REGMAP,
              $sformatf("ID_REGMAP reads GR_REGMAP_HASH of gr_regmap.h, 0x%08x", EXP_REGMAP));
        all = 1'b1;
        axil_read(R_ID_MAGIC);   all = all & (x_rdata == MAGIC);
        axil_read(R_ID_VERSION); all = all & (x_rdata == VERSION);
        axil_read(R_ID_BUILD);   all = all & (x_rdata == {BOARD_ID, BUILD_STAMP});
        axil_read(R_ID_DATE);    all = all & (x_rdata == BUILD_DATE);
        check(all, "identification: ID_MAGIC 0x47505552, ID_VERSION 0x00020000, ID_BUILD 0x5a123456, ID_DATE 0x20261126");
        n_hw = 0;
        all = 1'b1;
        for (i = 0; i < MAP_NREGS; i = i + 1)
            if (map_mask(i, MAP_HW_RO) != 32'h0) begin
                n_hw = n_hw + 1;
                if (!hw_known(i)) begin
                    all = 1'b0;
                    note($sformatf("%s has hardware-driven bits the TB does not drive (hw_value)",
                                   map_name(i)));
                end
            end
        check(all, $sformatf("the TB drives every hardware-driven register (%0d)", n_hw));

        // ---- read-only registers ignore writes; hardware fields follow their inputs ----
        all = 1'b1;
        n_ro = 0;
        for (i = 0; i < MAP_NREGS; i = i + 1)
            if ((m_live(i) | map_mask(i, MAP_PULSE)) == 32'h0) begin
                n_ro = n_ro + 1;
                a = map_off(i);
                wr(a, ~m_read(a), 4'hF, ok);  all = all & ok;
                rd(a, ok);                    all = all & ok;
                rnd32(d);
                wr(a, d, 4'hF, ok);           all = all & ok;
                rd(a, ok);                    all = all & ok;
            end
        check(all, $sformatf("%0d read-only registers keep their value after writes of ~value and random (OKAY)",
                             n_ro));
        all = 1'b1;
        for (k = 0; k < 3; k = k + 1) begin
            hw_randomize();
            @(negedge clk);
            for (i = 0; i < MAP_NREGS; i = i + 1)
                if (map_mask(i, MAP_HW_RO) != 32'h0) begin
                    rd(map_off(i), ok);
                    all = all & ok;
                end
        end
        check(all, $sformatf("hardware-driven fields read their csr_block inputs (%0d registers, 3 sets of values)",
                             n_hw));

        // ---- SCRATCH ----
        all = 1'b1;
        for (i = 0; i < 32; i = i + 1) begin
            wr(R_SCRATCH, 32'h1 << i, 4'hF, ok);  all = all & ok;
            rd(R_SCRATCH, ok);                    all = all & ok;
        end
        check(all, "SCRATCH: walking ones round-trip");
        all = 1'b1;
        for (i = 0; i < 32; i = i + 1) begin
            wr(R_SCRATCH, ~(32'h1 << i), 4'hF, ok);  all = all & ok;
            rd(R_SCRATCH, ok);                       all = all & ok;
        end
        check(all, "SCRATCH: walking zeros round-trip");
        all = 1'b1;
        for (i = 0; i < 64; i = i + 1) begin
            rnd32(d);
            wr(R_SCRATCH, d, 4'hF, ok);  all = all & ok;
            rd(R_SCRATCH, ok);           all = all & ok;
        end
        check(all, "SCRATCH: 64 random values round-trip");

        // ---- RW fields of every register; the ports they drive ----
        all = 1'b1;
        bad_port = 0;
        n_rw = 0;
        for (i = 0; i < MAP_NREGS; i = i + 1)
            if (map_mask(i, MAP_RW) != 32'h0 && map_off(i) != R_SCRATCH) begin
                n_rw = n_rw + 1;
                a = map_off(i);
                for (b = 0; b < 32; b = b + 1)
                    if ((map_mask(i, MAP_RW) & (32'h1 << b)) != 32'h0) begin
                        wr(a, 32'h1 << b, 4'hF, ok);  all = all & ok;
                        rd(a, ok);                    all = all & ok;
                        if (!ports_match()) begin
                            bad_port = bad_port + 1;
                            note_ports();
                        end
                    end
                for (k = 0; k < 4; k = k + 1) begin
                    rnd32(d);
                    d = d & ~map_mask(i, MAP_PULSE) & ~map_mask(i, MAP_W1S) & ~map_mask(i, MAP_W1C);
                    wr(a, d, 4'hF, ok);  all = all & ok;
                    rd(a, ok);           all = all & ok;
                    if (!ports_match()) begin
                        bad_port = bad_port + 1;
                        note_ports();
                    end
                end
            end
        restore_rw(ok);
        all = all & ok;
        check(all, $sformatf("RW fields of %0d registers round-trip (walking ones, random)", n_rw));
        check(bad_port == 0 && ports_match(),
              "every RW field drives its csr_block port (MC_AP_BASE, VPR_*, MMU_*, fault VALID)");

        // ---- holes ----
        wr(R_SCRATCH, 32'hC0FFEE11, 4'hF, ok);
        for (k = 0; k < 4; k = k + 1) begin
            case (k)
                0: a = 16'h0018;
                1: a = 16'h0028;
                2: a = 16'h0100;
                default: a = 16'hFFFC;
            endcase
            all = 1'b1;
            rd(a, ok);                     all = all & ok & (x_rresp == SLVERR) & (x_rdata == 32'h0);
            wr(a, 32'hFFFFFFFF, 4'hF, ok); all = all & ok & (x_bresp == SLVERR);
            rd_all(ok);                    all = all & ok;
            check(all && soft_rst === 1'b0 && ports_match(),
                  $sformatf("hole 0x%04x: read SLVERR with data 0, write SLVERR, nothing changes", a));
        end
        all = 1'b1;
        for (i = 0; i < 64; i = i + 1) begin
            rnd_hole(a);
            rnd32(d);
            if (d[31]) begin
                rd(a, ok);  all = all & ok & (x_rresp == SLVERR);
            end else begin
                wr(a, d, 4'hF, ok);  all = all & ok & (x_bresp == SLVERR);
            end
        end
        rd_all(ok);
        all = all & ok;
        check(all && soft_rst === 1'b0 && ports_match(),
              "64 random holes: SLVERR on read and write, nothing changes");
        all = 1'b1;
        for (i = 0; i < 256; i = i + 1) begin
            rd(16'(i * 4), ok);
            all = all & ok;
        end
        check(all, $sformatf("decode sweep 0x000-0x3fc: registers read as the map, the other %0d words SLVERR with data 0",
                             256 - MAP_NREGS));
        all = 1'b1;
        for (i = 0; i < 256; i = i + 1) begin
            a = 16'(i * 4);
            if (!is_reg(a)) begin
                wr(a, 32'hFFFFFFFF, 4'hF, ok);
                all = all & ok;
            end
        end
        rd_all(ok);
        check(all && ok && soft_rst === 1'b0 && ports_match() && n_inval_hi == 0 && n_go_hi == 0 &&
              n_dpre_hi == 0 && n_dres_hi == 0,
              "write sweep: all ones to every hole in 0x000-0x3fc answers SLVERR, no register or port changes");

        // ---- partial strobes ----
        all = 1'b1;
        for (i = 0; i < 15; i = i + 1) begin
            wr(R_SCRATCH, ~m_store[ix(R_SCRATCH)], 4'(i), ok);  all = all & ok & (x_bresp == SLVERR);
            rd(R_SCRATCH, ok);                                  all = all & ok;
        end
        check(all, "SCRATCH: every partial strobe (0x0..0xe) answers SLVERR and changes nothing");
        all = 1'b1;
        wr(R_IRQ_TEST, 32'hFFFFFFFF, 4'h1, ok);       all = all & ok & (x_bresp == SLVERR);
        wr(R_IRQ_ENABLE, 32'hFFFFFFFF, 4'h7, ok);     all = all & ok & (x_bresp == SLVERR);
        wr(R_RESET_CTRL, 32'h1, 4'hE, ok);            all = all & ok & (x_bresp == SLVERR);
        wr(R_ID_MAGIC, 32'h0, 4'h3, ok);              all = all & ok & (x_bresp == SLVERR);
        wr(R_MMU_INVALIDATE, 32'h1, 4'hB, ok);        all = all & ok & (x_bresp == SLVERR);
        wr(R_MMU_PROBE_CTRL, 32'h7, 4'h1, ok);        all = all & ok & (x_bresp == SLVERR);
        wr(R_VPR_CTRL, 32'h3, 4'h1, ok);              all = all & ok & (x_bresp == SLVERR);
        cycles(4);
        rd_all(ok);
        all = all & ok & (soft_rst === 1'b0) & (irq === 1'b0) & (n_inval_hi == 0) & (n_go_hi == 0);
        check(all && ports_match(),
              "partial-strobe writes answer SLVERR and do nothing (no interrupt, reset, strobe or lock)");

        // addr[1:0] are ignored by the register file (csr_regs contract).
        all = 1'b1;
        wr(R_SCRATCH | 16'h3, 32'h5A5AA5A5, 4'hF, ok);  all = all & ok;
        rd(R_SCRATCH, ok);                              all = all & ok & (x_rdata == 32'h5A5AA5A5);
        rd(R_SCRATCH | 16'h1, ok);                      all = all & ok;
        rd(R_ID_MAGIC | 16'h2, ok);                     all = all & ok;
        check(all, "address bits [1:0] are ignored (SCRATCH at 0x023, ID_MAGIC at 0x002)");

        // ---- reserved bits read zero ----
        // All ones into every register but RESET_CTRL, without its PULSE, W1S and W1C bits
        // (no strobe, lock or clear): what reads back is the fields only.
        all = 1'b1;
        for (i = 0; i < MAP_NREGS; i = i + 1)
            if (map_off(i) != R_RESET_CTRL) begin
                a = map_off(i);
                wr(a, ~(map_mask(i, MAP_PULSE) | map_mask(i, MAP_W1S) | map_mask(i, MAP_W1C)),
                   4'hF, ok);
                all = all & ok;
                rd(a, ok);
                all = all & ok & ((x_rdata & ~m_fields(i)) == 32'h0);
            end
        restore_rw(ok);
        check(all && ok, $sformatf("reserved bits read 0 in all %0d registers after ones are written",
                                   MAP_NREGS));
        wr(R_IRQ_TEST, 32'hFFFFFFFF, 4'hF, ok);
        rd(R_IRQ_TEST, ok2);
        rd(R_IRQ_STATE, all);
        check(ok && ok2 && all && x_rdata == irq_bits,
              "IRQ_TEST: reads 0 after all ones are written, and IRQ_STATE then reads every source bit, no other");
        wr(R_IRQ_STATE, 32'hFFFFFFFF, 4'hF, ok);  // clears every source
        w = n_soft;
        wr(R_RESET_CTRL, 32'hFFFFFFFE, 4'hF, ok);
        cycles(4);
        rd(R_RESET_CTRL, ok2);
        check(ok && ok2 && x_rdata == 32'h0 && n_soft == w,
              "RESET_CTRL: reads 0 after 0xfffffffe is written, and no soft reset");

        // ---- interrupts, each source in turn ----
        bad_d = 0; bad_r = 0; bad_irq = 0; bad_ovl = 0; hold = 0; n_lost = 0; n_src = 0;
        for (b = 0; b < 32; b = b + 1)
            if ((irq_bits & (32'h1 << b)) != 32'h0) begin
                n_src = n_src + 1;
                wr(R_IRQ_ENABLE, 32'h0, 4'hF, ok);
                wr(R_IRQ_TEST, 32'h1 << b, 4'hF, ok2);
                rd(R_IRQ_STATE, all);
                if (!(ok && ok2 && all && x_rdata == (32'h1 << b))) bad_d = bad_d + 1;
                for (i = 0; i < 20; i = i + 1) begin
                    if (irq !== 1'b0) hold = hold + 1;
                    @(negedge clk);
                end
                axil_write(R_IRQ_ENABLE, 32'h1 << b, 4'hF);
                m_write(R_IRQ_ENABLE, 32'h1 << b, 4'hF);
                wait_for(0, 1'b1, 2, w);
                if (x_bresp != OKAY || w < 0) bad_r = bad_r + 1;
                wr(R_IRQ_STATE, ~(32'h1 << b), 4'hF, ok);  // the other bits only: nothing to clear
                rd(R_IRQ_STATE, ok2);
                cycles(2);
                if (!(ok && ok2 && x_rdata == (32'h1 << b) && irq === 1'b1)) bad_irq = bad_irq + 1;
                wr(R_IRQ_ENABLE, 32'h0, 4'hF, ok);
                wait_for(0, 1'b0, 2, w);
                rd(R_IRQ_STATE, ok2);
                wr(R_IRQ_ENABLE, 32'h1 << b, 4'hF, all);
                wait_for(0, 1'b1, 2, k);
                if (!(ok && ok2 && all && w >= 0 && k >= 0)) bad_ovl = bad_ovl + 1;
                axil_write(R_IRQ_STATE, 32'h1 << b, 4'hF);
                m_write(R_IRQ_STATE, 32'h1 << b, 4'hF);
                wait_for(0, 1'b0, 2, w);
                rd(R_IRQ_STATE, ok2);
                if (!(x_bresp == OKAY && ok2 && w >= 0 && x_rdata == 32'h0)) n_lost = n_lost + 1;
            end
        wr(R_IRQ_ENABLE, 32'h0, 4'hF, ok);
        check(bad_d == 0, $sformatf("IRQ_TEST sets exactly its IRQ_STATE bit (%0d sources)", n_src));
        check(hold == 0, "irq_o stays low while IRQ_STATE is set and IRQ_ENABLE clear");
        check(bad_r == 0, "irq_o rises within 2 cycles of the IRQ_ENABLE write response");
        check(bad_irq == 0, "writing 0 to an IRQ_STATE bit leaves it set and irq_o high");
        check(bad_ovl == 0, "clearing IRQ_ENABLE drops irq_o with IRQ_STATE kept; setting it raises irq_o again");
        check(n_lost == 0, "writing 1 to an IRQ_STATE bit clears it and irq_o falls within 2 cycles");

        // ---- hardware sources ----
        all = 1'b1;
        wr(R_IRQ_ENABLE, 32'h1 << IRQ_MC_FAULT, 4'hF, ok);  all = all & ok;
        hw_pulse(0);
        rd(R_IRQ_STATE, ok);                               all = all & ok;
        wait_for(0, 1'b1, 2, w);                           all = all & (w >= 0);
        wr(R_IRQ_STATE, 32'h1 << IRQ_MC_FAULT, 4'hF, ok);  all = all & ok;
        wait_for(0, 1'b0, 2, w);                           all = all & (w >= 0);
        wr(R_IRQ_ENABLE, 32'h0, 4'hF, ok);                 all = all & ok;
        check(all, "an mc_fault_irq_i pulse sets IRQ_STATE.MC_FAULT and raises irq_o when enabled");
        all = 1'b1;
        hw_pulse(1);
        rd(R_MC_FAULT_STATUS, ok);          all = all & ok & x_rdata[0] & (fault_valid === 1'b1);
        wr(R_MC_FAULT_STATUS, 32'h0, 4'hF, ok);
        rd(R_MC_FAULT_STATUS, ok2);         all = all & ok & ok2 & x_rdata[0];
        wr(R_MC_FAULT_STATUS, 32'h1, 4'hF, ok);
        rd(R_MC_FAULT_STATUS, ok2);         all = all & ok & ok2 & ~x_rdata[0] & (fault_valid === 1'b0);
        check(all, "an mc_fault_set_i pulse sets MC_FAULT_STATUS.VALID and mc_fault_valid_o; W1C clears both");

        // ---- strobe (PULSE) fields ----
        all = 1'b1;
        g0 = n_inval_up;
        g1 = n_go_up;
        i0 = n_dpre_up;
        i1 = n_dres_up;
        wr(R_DMA_CTRL, 32'h3, 4'hF, ok);              all = all & ok;  // ENABLE and PREEMPT
        wr(R_DMA_CTRL, 32'h5, 4'hF, ok);              all = all & ok;  // ENABLE and RESET
        wr(R_DMA_CTRL, 32'h7, 4'hF, ok);              all = all & ok;
        rd(R_DMA_CTRL, ok);                           all = all & ok & (x_rdata == 32'h1);
        all = all & (n_dpre_up - i0 == 2) & (n_dres_up - i1 == 2) & (n_dpre_hi == n_dpre_up) &
              (n_dres_hi == n_dres_up);
        wr(R_MMU_INVALIDATE, 32'h1, 4'hF, ok);        all = all & ok;
        wr(R_MMU_INVALIDATE, 32'hFFFFFFFE, 4'hF, ok); all = all & ok;
        wr(R_MMU_PROBE_CTRL, 32'h7, 4'hF, ok);        all = all & ok;  // GO with WRITE, PHYSICAL
        wr(R_MMU_PROBE_CTRL, 32'h6, 4'hF, ok);        all = all & ok;
        wr(R_MMU_INVALIDATE, 32'h1, 4'hF, ok);        all = all & ok;
        cycles(2);
        rd(R_MMU_INVALIDATE, ok);                     all = all & ok & (x_rdata == 32'h0);
        rd(R_MMU_PROBE_CTRL, ok);                     all = all & ok & (x_rdata == 32'h6);
        check(all && n_inval_up - g0 == 2 && n_go_up - g1 == 1 && n_inval_hi == n_inval_up &&
              n_go_hi == n_go_up && ports_match(),
              "MMU_INVALIDATE.ALL, MMU_PROBE_CTRL.GO, DMA_CTRL.PREEMPT/RESET read 0 and strobe their port one cycle per 1 written");
        restore_rw(ok);

        // ---- soft reset, idle_i low for a while ----
        for (i = 0; i < MAP_NREGS; i = i + 1)
            if (map_mask(i, MAP_RW) != 32'h0 && map_off(i) != R_IRQ_ENABLE) begin
                rnd32(d);
                wr(map_off(i), d & map_mask(i, MAP_RW), 4'hF, ok);
            end
        wr(R_IRQ_ENABLE, 32'h0, 4'hF, ok);
        hw_pulse(1);  // MC_FAULT_STATUS.VALID
        idle = 1'b0;
        wr(R_RESET_CTRL, 32'h1, 4'hF, ok);
        wait_for(1, 1'b1, 3, w);
        check(ok && w >= 0, "RESET_CTRL.CORE=1 raises soft_rst_o within 3 cycles of the response");
        rndn(36, n);
        n = n + 5;
        hold = 0;
        for (i = 0; i < n; i = i + 1) begin
            if (soft_rst !== 1'b1) hold = hold + 1;
            @(negedge clk);
        end
        // The port keeps answering during the reset; registers read their reset values.
        all = 1'b1;
        axil_read(R_ID_MAGIC);    all = all & x_rseen & (x_rresp == OKAY) & (x_rdata == MAGIC);
        axil_read(R_SCRATCH);     all = all & x_rseen & (x_rresp == OKAY) & (x_rdata == 32'h0);
        axil_read(R_IRQ_STATE);   all = all & x_rseen & (x_rresp == OKAY) & (x_rdata == 32'h0);
        axil_read(R_MMU_ROOT);    all = all & x_rseen & (x_rresp == OKAY) & (x_rdata == 32'h0);
        if (soft_rst !== 1'b1) hold = hold + 1;
        check(hold == 0, $sformatf("soft_rst_o stays high while idle_i is low (%0d+ cycles)", n));
        check(all, "CSR port answers reads during soft reset with reset values");
        idle = 1'b1;
        wait_for(1, 1'b0, 2, w);
        check(w >= 0, $sformatf("soft_rst_o falls within 2 cycles of idle_i rising (%0d)", w));
        m_soft_reset();
        cycles(2);
        rd(R_IRQ_STATE, ok);
        check(ok && x_rdata == (32'h1 << IRQ_RESET_DONE), "after soft reset IRQ_STATE.RESET_DONE reads 1");
        rd_all(ok);
        check(ok && ports_match() && irq === 1'b0,
              "after soft reset every register reads its reset value (RESET_DONE aside) and the ports follow");
        wr(R_IRQ_ENABLE, 32'h1 << IRQ_RESET_DONE, 4'hF, ok);
        wait_for(0, 1'b1, 2, w);
        wr(R_IRQ_STATE, 32'h1 << IRQ_RESET_DONE, 4'hF, ok2);
        wait_for(0, 1'b0, 2, k);
        check(ok && ok2 && w >= 0 && k >= 0, "RESET_DONE raises irq_o once enabled; W1C drops it");
        wr(R_IRQ_ENABLE, 32'h0, 4'hF, ok);

        // ---- soft reset with idle_i already high ----
        wr(R_SCRATCH, 32'h12345678, 4'hF, ok);
        n = n_soft;
        wr(R_RESET_CTRL, 32'h1, 4'hF, ok2);
        cycles(6);
        hold = n_soft - n;
        m_soft_reset();
        rd(R_IRQ_STATE, all);
        rd(R_SCRATCH, ok);
        check(ok && ok2 && all && hold >= 1 && hold <= 2,
              $sformatf("soft reset with idle_i high: %0d cycle(s) of soft_rst_o, RESET_DONE set, SCRATCH 0", hold));
        wr(R_IRQ_STATE, 32'hFFFFFFFF, 4'hF, ok);

        // ---- hardware set vs W1C clear in the same cycle ----
        // Three hardware-set W1C bits: IRQ_STATE.RESET_DONE (set the cycle after idle_i rises
        // in a soft reset), IRQ_STATE.MC_FAULT (mc_fault_irq_i) and MC_FAULT_STATUS.VALID
        // (mc_fault_set_i). The TB starts the set -3..+3 cycles from the W1C write's bus cycle
        // (0 lines them up; the first races of each kind use 0). The probe tells in which
        // cycles the two reached the register file: a clear strictly after the set must leave
        // 0, any other order must leave 1.
        n_aligned = 0;
        n_lost = 0;
        bad_d = 0;
        for (i = 0; i < RACES && !hung; i = i + 1) begin
            race_kind = i % 3;
            race_addr = R_IRQ_STATE;
            race_bit = 32'h1 << IRQ_RESET_DONE;
            if (race_kind == 1) race_bit = 32'h1 << IRQ_MC_FAULT;
            if (race_kind == 2) begin
                race_addr = R_MC_FAULT_STATUS;
                race_bit = 32'h1;
            end
            rndn(7, k);
            k = k - 3;
            if (i < 12) k = 0;
            if (race_kind == 0) begin
                idle = 1'b0;
                wr(R_RESET_CTRL, 32'h1, 4'hF, ok);
                wait_for(1, 1'b1, 4, w);
                if (!ok || w < 0) bad_d = bad_d + 1;
            end
            rndn(3, r);
            cycles(r);
            n = cyc;
            // AW and W go out at step 3: the write reaches the register file in the cycle
            // that ends one edge later, as a set driven at step 4 (mc_fault_*) or as the
            // RESET_DONE set that follows idle_i raised at step 3.
            hook_kind = race_kind;
            hook_step = (race_kind == 0 ? 3 : 4) + k;
            axil_xfer(1'b1, race_addr, race_bit, 4'hF, 1'b0, 16'h0, 3, 3, 0);
            hook_step = -1;
            cycles(3);
            if (last_set_cyc < n || last_clr_cyc < n) begin
                bad_d = bad_d + 1;
                note($sformatf("race %0d: set or clear not seen (set %0d clear %0d start %0d)",
                               i, last_set_cyc, last_clr_cyc, n));
            end
            if (last_set_cyc == last_clr_cyc) n_aligned = n_aligned + 1;
            if (race_kind == 0) m_soft_reset();
            else if (race_kind == 1) m_store[ix(R_IRQ_STATE)][IRQ_MC_FAULT] = 1'b1;
            else m_store[ix(R_MC_FAULT_STATUS)][0] = 1'b1;
            if (last_clr_cyc > last_set_cyc) m_write(race_addr, race_bit, 4'hF);
            rd(race_addr, ok);
            if (!ok) begin
                n_lost = n_lost + 1;
                if (last_set_cyc == last_clr_cyc) bad_d = bad_d + 1;
                note($sformatf("race %0d kind %0d offset %0d: set at %0d clear at %0d, read %08x",
                               i, race_kind, k, last_set_cyc, last_clr_cyc, x_rdata));
            end
            wr(race_addr, race_bit, 4'hF, ok);
        end
        idle = 1'b1;
        check(bad_d == 0 && n_aligned >= 12,
              $sformatf("hardware set wins over a W1C clear in the same cycle (RESET_DONE, MC_FAULT, fault VALID; %0d aligned)",
                        n_aligned));
        check(n_lost == 0, $sformatf("no hardware set lost or wrongly kept over %0d set/clear races", RACES));

        // ---- random mixed accesses against the model ----
        // Kinds of operation: a single read; a single write; a write and a read issued
        // together (either may go first); a pipelined batch of up to 4 writes and 4 reads
        // (several reads in flight); a soft reset; a hardware set pulse. Reads that race
        // writes may return the state after any number of the batch's writes, but never go
        // back in time.
        bad_d = 0;
        bad_r = 0;
        bad_irq = 0;
        bad_ovl = 0;
        bad_port = 0;
        n_ovl = 0;
        n_pipe = 0;
        i0 = n_inval_up - m_inval;
        i1 = n_go_up - m_go;
        i2 = n_dpre_up - m_dpre;
        i3 = n_dres_up - m_dres;
        for (i = 0; i < RANDOM_OPS && !hung; i = i + 1) begin
            if (i % 250 == 0) begin
                rndn(90, stall_pct);
                if ((i / 250) % 4 == 0) stall_pct = 0;
                rndn(6, max_dly);
                hw_randomize();
            end
            rndn(100, k);
            if (k < 28) begin
                pick_read(a);
                axil_read(a);
                if (x_rresp != m_resp(a, 1'b0, 4'h0)) bad_r = bad_r + 1;
                if (x_rdata != m_read(a)) begin
                    bad_d = bad_d + 1;
                    note($sformatf("op %0d read %04x: %08x, model %08x", i, a, x_rdata, m_read(a)));
                end
            end else if (k < 56) begin
                pick_write(a, d, s);
                axil_write(a, d, s);
                if (x_bresp != m_resp(a, 1'b1, s)) begin
                    bad_r = bad_r + 1;
                    note($sformatf("op %0d write %04x strb %x: bresp %b", i, a, s, x_bresp));
                end
                m_write(a, d, s);
            end else if (k < 74) begin
                pick_write(a, d, s);
                rnd32(exp);
                ra = (exp[31:16] ^ exp[15:0]) & 16'hFFFC;
                if (exp[17:16] != 2'd0) ra = a & 16'hFFFC;
                if (exp[20:18] < 3'd2) ra = R_IRQ_STATE;
                before_v = m_read(ra);
                exp = 32'(m_resp(ra, 1'b0, 4'h0));
                rndn(max_dly + 1, k);
                rndn(max_dly + 1, n);
                rndn(max_dly + 3, r);
                axil_xfer(1'b1, a, d, s, 1'b1, ra, k, n, r);
                if (x_bresp != m_resp(a, 1'b1, s) || x_rresp != exp[1:0] || x_extra)
                    bad_r = bad_r + 1;
                m_write(a, d, s);
                if (x_overlap) n_ovl = n_ovl + 1;
                if (x_rdata != before_v && x_rdata != m_read(ra)) begin
                    bad_ovl = bad_ovl + 1;
                    note($sformatf("op %0d read %04x with write %04x=%08x: %08x, model %08x or %08x",
                                   i, ra, a, d, x_rdata, before_v, m_read(ra)));
                end
            end else if (k < 94) begin
                rndn(5, q_nw);
                rndn(4, q_nr);
                q_nr = q_nr + 1;
                for (w = 0; w < q_nw; w = w + 1) begin
                    pick_write(a, d, s);
                    q_wa[w] = a;
                    q_wd[w] = d;
                    q_ws[w] = s;
                    rndn(max_dly + 1, r);
                    q_aw_gap[w] = r;
                    rndn(max_dly + 1, r);
                    q_w_gap[w] = r;
                end
                for (w = 0; w < q_nr; w = w + 1) begin
                    pick_read(a);
                    rndn(3, r);
                    if (r == 0 && q_nw > 0) a = q_wa[0];
                    q_ra[w] = a;
                    rndn(max_dly + 1, r);
                    q_ar_gap[w] = r;
                end
                // acc[r*(QMAX+1)+j]: what read r returns after the batch's first j writes.
                for (w = 0; w <= q_nw; w = w + 1) begin
                    for (r = 0; r < q_nr; r = r + 1) acc[r * (QMAX + 1) + w] = m_read(q_ra[r]);
                    if (w < q_nw) m_write(q_wa[w], q_wd[w], q_ws[w]);
                end
                axil_run();
                if (!x_done || x_extra) bad_r = bad_r + 1;
                for (w = 0; w < q_nw; w = w + 1)
                    if (q_bresp[w] != m_resp(q_wa[w], 1'b1, q_ws[w])) bad_r = bad_r + 1;
                if (x_overlap) n_ovl = n_ovl + 1;
                if (x_rpipe) n_pipe = n_pipe + 1;
                n = 0;  // earliest prefix the next read may show (reads do not go back in time)
                for (r = 0; r < q_nr; r = r + 1) begin
                    if (q_rresp[r] != m_resp(q_ra[r], 1'b0, 4'h0)) bad_r = bad_r + 1;
                    hold = -1;
                    for (w = q_nw; w >= n; w = w - 1)
                        if (q_rdata[r] == acc[r * (QMAX + 1) + w]) hold = w;
                    if (hold < 0) begin
                        bad_ovl = bad_ovl + 1;
                        note($sformatf("op %0d batch %0dw/%0dr: read %0d of %04x: %08x, not a state after %0d..%0d writes",
                                       i, q_nw, q_nr, r, q_ra[r], q_rdata[r], n, q_nw));
                    end else n = hold;
                end
            end else if (k < 97) begin
                rndn(2, r);
                hw_pulse(r);
            end else begin
                // Soft reset (idle_i high): wait for it to complete before the next access.
                rndn(3, r);
                d = 32'h1;
                if (r == 0) d = 32'h0;
                axil_write(R_RESET_CTRL, d, 4'hF);
                if (x_bresp != OKAY) bad_r = bad_r + 1;
                cycles(4);
                if (d[0]) m_soft_reset();
            end
            rndn(10, r);
            if (r == 0) begin
                cycles(2);
                if (irq !== m_irq()) begin
                    bad_irq = bad_irq + 1;
                    note($sformatf("op %0d: irq_o %b, model STATE %08x ENABLE %08x", i, irq,
                                   m_store[ix(R_IRQ_STATE)], m_store[ix(R_IRQ_ENABLE)]));
                end
                if (!ports_match()) begin
                    bad_port = bad_port + 1;
                    note_ports();
                end
            end
        end
        cycles(2);
        check(bad_d == 0, $sformatf("random mix: %0d operations, every lone read matches the model", RANDOM_OPS));
        check(bad_r == 0, "random mix: every response (OKAY/SLVERR) matches the model, none missing or extra");
        check(bad_ovl == 0, "random mix: reads racing writes return a state the writes passed through, in order");
        check(n_ovl >= 50, $sformatf("random mix: reads really overlapped writes (%0d times)", n_ovl));
        check(n_pipe >= 50, $sformatf("random mix: two or more reads really in flight at once (%0d times)", n_pipe));
        check(bad_irq == 0, "random mix: irq_o equals |(IRQ_STATE & IRQ_ENABLE) when quiet");
        check(bad_port == 0 && ports_match(), "random mix: the ports csr_block drives follow the registers");
        check(n_inval_up - m_inval == i0 && n_go_up - m_go == i1 && n_inval_hi == n_inval_up &&
              n_go_hi == n_go_up,
              $sformatf("random mix: one strobe cycle per 1 written to MMU_INVALIDATE.ALL / MMU_PROBE_CTRL.GO (%0d, %0d)",
                        n_inval_up, n_go_up));
        check(n_dpre_up - m_dpre == i2 && n_dres_up - m_dres == i3 && n_dpre_hi == n_dpre_up &&
              n_dres_hi == n_dres_up && n_ts_rd == n_ts_ar && n_ts_ar > 0,
              $sformatf("random mix: DMA_CTRL.PREEMPT/RESET strobe once per 1 written (%0d, %0d); the DMA_TIMESTAMP_LO read strobe once per read (%0d)",
                        n_dpre_up, n_dres_up, n_ts_rd));

        // ---- protocol ----
        check(err_b_hold == 0, "protocol: BVALID never drops before BREADY, BRESP stable while stalled");
        check(err_r_hold == 0, "protocol: RVALID never drops before RREADY, RDATA/RRESP stable while stalled");
        check(err_order == 0 && n_b == n_aw && n_b == n_w && n_r == n_ar,
              $sformatf("protocol: one response per request, never early (%0d writes, %0d reads)",
                        n_b, n_r));
        check(err_x == 0, "protocol: no X/Z on outputs after reset");
        check(err_irq_lag == 0, "irq_o equals |(IRQ_STATE & IRQ_ENABLE) of the cycle before, every cycle");
        check(!hung, "no transaction timed out");

        // ---- VPR lock (last: only a hard reset undoes it) ----
        stall_pct = 30;
        max_dly = 3;
        all = 1'b1;
        wr(R_VPR_BASE, 32'h00123000, 4'hF, ok);   all = all & ok;
        wr(R_VPR_LIMIT, 32'h00456000, 4'hF, ok);  all = all & ok;
        wr(R_VPR_CTRL, 32'h1, 4'hF, ok);          all = all & ok;
        wr(R_VPR_CTRL, 32'h3, 4'hF, ok);          all = all & ok;  // ENABLE and LOCK
        rd(R_VPR_CTRL, ok);                       all = all & ok & (x_rdata == 32'h3);
        wr(R_VPR_BASE, 32'h00000000, 4'hF, ok);   all = all & ok;
        wr(R_VPR_LIMIT, 32'hFFFFF000, 4'hF, ok);  all = all & ok;
        wr(R_VPR_CTRL, 32'h0, 4'hF, ok);          all = all & ok;
        rd(R_VPR_BASE, ok);                       all = all & ok & (x_rdata == 32'h00123000);
        rd(R_VPR_LIMIT, ok);                      all = all & ok & (x_rdata == 32'h00456000);
        rd(R_VPR_CTRL, ok);                       all = all & ok & (x_rdata == 32'h3);
        check(all && ports_match() && vpr_enable === 1'b1 && vpr_base_page == 20'h00123,
              "VPR_CTRL.LOCK makes VPR_BASE, VPR_LIMIT and VPR_CTRL.ENABLE read-only (writes OKAY, ignored); 0 does not unlock");
        wr(R_RESET_CTRL, 32'h1, 4'hF, ok);
        cycles(4);
        m_soft_reset();
        axil_read(R_VPR_CTRL);
        check(ok && x_rdata[1] == 1'b1, "VPR_CTRL.LOCK survives a soft reset");
        // The lock is meant to keep the protected range enforced until a hard reset
        // (gpu_regs.rdl: read-only until a hard reset; DESIGN: protected content never leaves).
        all = vpr_enable === 1'b1 && vpr_base_page == 20'h00123 && vpr_limit_page == 20'h00456;
        if (!all) note($sformatf("after the soft reset: VPR_CTRL %08x, vpr_enable_o %b, pages %05x..%05x",
                                 x_rdata, vpr_enable, vpr_base_page, vpr_limit_page));
        check(all, "a soft reset leaves a locked VPR enforced: VPR_BASE, VPR_LIMIT, VPR_CTRL.ENABLE kept");
        rst = 1'b1;
        cycles(2);
        rst = 1'b0;
        m_hard_reset();
        cycles(1);
        rd_all(ok);
        wr(R_VPR_BASE, 32'h00077000, 4'hF, ok2);
        rd(R_VPR_BASE, all);
        check(ok && ok2 && all && ports_match(),
              "rst_i clears VPR_CTRL.LOCK and every register; VPR_BASE is writable again");

        tb_finish($sformatf(", %0d cycles", cyc));
    end
endmodule
`default_nettype wire
