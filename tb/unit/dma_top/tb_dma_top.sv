// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_dma_top: self-checking unit test of the whole DMA engine (dma_top) under Icarus 11 and
// under Verilator 5.006 --timing: a ring and DMA buffers in a host memory model, a VRAM model (both
// in tb/unit/common/tb_dma_mems, random stalls and latencies), a testbench MMU, the registers
// driven as csr_block would.
//
// Output is TAP ("1..N", "# seed=S", one "ok"/"not ok" line per check; N does not depend on
// the seed); exits through $fatal when a check failed. Plusargs: +seed=N, +wave=<file>.
//
// Checked: one entry with every command (NOP, COPY, FILL, FENCE with IRQ, INDIRECT,
// TLB_INVALIDATE, TIMESTAMP, WAIT) byte-exact; random entries of COPY/FILL/FENCE commands
// against a reference, their fences in order, HEAD, COMPLETED_FENCE, interrupts and counters;
// USE_ROOT reaching the MMU port; preemption during a stream (STOP_* exact, the fence record,
// the removed entries resubmitted); a WAIT hang caught by the watchdog and an engine reset;
// bad ring entries and bad commands; entries without PRIV faulting (type 7) on a physical space,
// an INDIRECT or a missing USE_ROOT, with nothing written; DMA_PERF_STALLS against its definition counted on the
// ports; a core soft reset while busy (drains, registers back to reset values).
module tb_dma_top;
    localparam integer PLAN = 17;
    localparam [63:0]  HOST_BASE = 64'h1_0000_0000;
    localparam integer HOST_BYTES = 65536;
    localparam integer VRAM_BYTES = 131072;
    localparam integer TOTAL = HOST_BYTES + VRAM_BYTES;
    localparam [63:0]  VA_BASE = 64'h0000_7000_0000_0000;
    localparam integer VA_PAGES = 32;
    localparam [63:0]  RING = HOST_BASE;                 // 16 entries
    localparam [63:0]  FENCE_REC = HOST_BASE + 64'h1000;
    localparam [63:0]  CMDS = HOST_BASE + 64'h2000;      // command buffers: 0x2000..0x7fff
    localparam [63:0]  HDATA = HOST_BASE + 64'h8000;     // host data: 0x8000..0xffff
    localparam [3:0]   LOG2 = 4'd4;
    localparam integer RING_N = 16;
    localparam integer TIMEOUT = 400000;

    logic clk = 1'b0;
    logic rst = 1'b1;
    initial forever #5 clk = ~clk;
    integer cyc = 0;
    always @(posedge clk) cyc <= cyc + 1;

    // ---- seed, waves, random numbers (xorshift64*: rndn), TAP checks: the kit -------------
`define TB_TOP tb_dma_top
`include "tb/unit/common/tb_kit.svh"
    logic [63:0] rng_mmu = 64'h2;
    task automatic xs(inout logic [63:0] st, input integer n, output integer v);
        logic [31:0] r;
        st = st ^ (st >> 12);
        st = st ^ (st << 25);
        st = st ^ (st >> 27);
        r = 32'((st * 64'h2545F4914F6CDD1D) >> 32) % 32'(n);
        v = $signed(r);
    endtask
    task automatic rnd64(output logic [63:0] v);
        integer a, b;
        xs(rng_q, 65536, a);
        xs(rng_q, 65536, b);
        v = {16'(a), 16'(b), 16'(b ^ 12345), 16'(a ^ 777)};
    endtask

    // ---- DUT ------------------------------------------------------------------------------
    logic        soft_rst = 1'b0, enable = 1'b0, preempt = 1'b0, dreset = 1'b0, ts_rd = 1'b0;
    logic [15:0] tail = 16'd0;
    logic [31:0] preempt_fence = 32'hFEED0001, watchdog = 32'h0010_0000;
    wire         idle, preempted, hung, faulted, resetting, fault_write;
    wire [3:0]   state, fault_type;
    wire [2:0]   fault_mmu;
    wire [15:0]  head, stop_head, stop_tail, fault_entry;
    wire [31:0]  completed, stop_offset, stop_done, perf_busy, perf_stalls, perf_cmds, perf_last;
    wire [63:0]  fault_addr, timestamp, perf_bytes;
    wire         irq_fence, irq_pre, irq_fault;
    wire         mmu_req_valid, mmu_req_write, mmu_use_root, mmu_rsp_ready, tlb_inv;
    wire [47:0]  mmu_req_va;
    wire [31:0]  mmu_root;
    logic        mmu_req_ready = 1'b0, mmu_rsp_valid = 1'b0, mmu_rsp_system = 1'b0;
    logic        mmu_rsp_cacheable = 1'b0, mmu_rsp_fault = 1'b0;
    logic [51:0] mmu_rsp_pa = 52'd0;
    logic [2:0]  mmu_rsp_type = 3'd0;
    wire         mc_fault, mc_fault_write;
    wire [2:0]   mc_fault_type;
    wire [47:0]  mc_fault_addr;
    wire [3:0]  h_awid, h_arid, h_bid, h_rid;
    wire [63:0] h_awaddr, h_araddr, h_wdata, h_rdata;
    wire [7:0]  h_awlen, h_arlen, h_wstrb;
    wire [2:0]  h_awsize, h_arsize, h_awprot, h_arprot;
    wire [1:0]  h_awburst, h_arburst, h_bresp, h_rresp;
    wire [3:0]  h_awcache, h_arcache;
    wire        h_awlock, h_arlock, h_awvalid, h_awready, h_wlast, h_wvalid, h_wready;
    wire        h_bvalid, h_bready, h_arvalid, h_arready, h_rlast, h_rvalid, h_rready;
    wire [1:0]  v_awid, v_arid, v_bid, v_rid;
    wire [31:0] v_awaddr, v_araddr;
    wire [63:0] v_wdata, v_rdata;
    wire [7:0]  v_awlen, v_arlen, v_wstrb;
    wire [2:0]  v_awsize, v_arsize, v_awprot, v_arprot;
    wire [1:0]  v_awburst, v_arburst, v_bresp, v_rresp;
    wire [3:0]  v_awcache, v_arcache;
    wire        v_awvalid, v_awready, v_wlast, v_wvalid, v_wready;
    wire        v_bvalid, v_bready, v_arvalid, v_arready, v_rlast, v_rvalid, v_rready;

    dma_top #(.HostIdBits(4), .VramIdBits(2), .VramAddrBits(32)) dut (
        .clk_i(clk), .rst_i(rst), .soft_rst_i(soft_rst),
        .enable_i(enable), .preempt_i(preempt), .reset_i(dreset),
        .ring_base_i(RING), .ring_log2_i(LOG2), .ring_tail_i(tail),
        .fence_addr_i(FENCE_REC), .preempt_fence_i(preempt_fence), .watchdog_i(watchdog),
        .ts_lo_read_i(ts_rd),
        .idle_o(idle), .preempted_o(preempted), .hung_o(hung), .faulted_o(faulted),
        .resetting_o(resetting), .state_o(state), .ring_head_o(head),
        .completed_fence_o(completed), .stop_head_o(stop_head), .stop_tail_o(stop_tail),
        .stop_offset_o(stop_offset), .stop_done_o(stop_done), .fault_type_o(fault_type),
        .fault_mmu_type_o(fault_mmu), .fault_write_o(fault_write), .fault_entry_o(fault_entry),
        .fault_addr_o(fault_addr), .timestamp_o(timestamp), .perf_busy_o(perf_busy),
        .perf_bytes_o(perf_bytes), .perf_stalls_o(perf_stalls), .perf_cmds_o(perf_cmds),
        .perf_last_cmd_o(perf_last),
        .irq_fence_o(irq_fence), .irq_preempted_o(irq_pre), .irq_fault_o(irq_fault),
        .vpr_en_i(1'b0), .vpr_base_i(20'd0), .vpr_limit_i(20'd0),
        .vram_pages_i(21'h10_0000),  // all of the 32-bit VRAM space
        .mmu_req_valid_o(mmu_req_valid), .mmu_req_ready_i(mmu_req_ready),
        .mmu_req_va_o(mmu_req_va), .mmu_req_write_o(mmu_req_write),
        .mmu_req_use_root_o(mmu_use_root), .mmu_req_root_o(mmu_root),
        .mmu_rsp_valid_i(mmu_rsp_valid), .mmu_rsp_ready_o(mmu_rsp_ready),
        .mmu_rsp_pa_i(mmu_rsp_pa), .mmu_rsp_system_i(mmu_rsp_system),
        .mmu_rsp_cacheable_i(mmu_rsp_cacheable), .mmu_rsp_fault_i(mmu_rsp_fault),
        .mmu_rsp_fault_type_i(mmu_rsp_type), .tlb_invalidate_o(tlb_inv),
        .mc_fault_o(mc_fault), .mc_fault_type_o(mc_fault_type), .mc_fault_addr_o(mc_fault_addr),
        .mc_fault_write_o(mc_fault_write),
        .m_host_awid_o(h_awid), .m_host_awaddr_o(h_awaddr), .m_host_awlen_o(h_awlen),
        .m_host_awsize_o(h_awsize), .m_host_awburst_o(h_awburst), .m_host_awlock_o(h_awlock),
        .m_host_awcache_o(h_awcache), .m_host_awprot_o(h_awprot), .m_host_awvalid_o(h_awvalid),
        .m_host_awready_i(h_awready), .m_host_wdata_o(h_wdata), .m_host_wstrb_o(h_wstrb),
        .m_host_wlast_o(h_wlast), .m_host_wvalid_o(h_wvalid), .m_host_wready_i(h_wready),
        .m_host_bid_i(h_bid), .m_host_bresp_i(h_bresp), .m_host_bvalid_i(h_bvalid),
        .m_host_bready_o(h_bready), .m_host_arid_o(h_arid), .m_host_araddr_o(h_araddr),
        .m_host_arlen_o(h_arlen), .m_host_arsize_o(h_arsize), .m_host_arburst_o(h_arburst),
        .m_host_arlock_o(h_arlock), .m_host_arcache_o(h_arcache), .m_host_arprot_o(h_arprot),
        .m_host_arvalid_o(h_arvalid), .m_host_arready_i(h_arready), .m_host_rid_i(h_rid),
        .m_host_rdata_i(h_rdata), .m_host_rresp_i(h_rresp), .m_host_rlast_i(h_rlast),
        .m_host_rvalid_i(h_rvalid), .m_host_rready_o(h_rready),
        .m_vram_awid_o(v_awid), .m_vram_awaddr_o(v_awaddr), .m_vram_awlen_o(v_awlen),
        .m_vram_awsize_o(v_awsize), .m_vram_awburst_o(v_awburst), .m_vram_awcache_o(v_awcache),
        .m_vram_awprot_o(v_awprot), .m_vram_awvalid_o(v_awvalid), .m_vram_awready_i(v_awready),
        .m_vram_wdata_o(v_wdata), .m_vram_wstrb_o(v_wstrb), .m_vram_wlast_o(v_wlast),
        .m_vram_wvalid_o(v_wvalid), .m_vram_wready_i(v_wready), .m_vram_bid_i(v_bid),
        .m_vram_bresp_i(v_bresp), .m_vram_bvalid_i(v_bvalid), .m_vram_bready_o(v_bready),
        .m_vram_arid_o(v_arid), .m_vram_araddr_o(v_araddr), .m_vram_arlen_o(v_arlen),
        .m_vram_arsize_o(v_arsize), .m_vram_arburst_o(v_arburst), .m_vram_arcache_o(v_arcache),
        .m_vram_arprot_o(v_arprot), .m_vram_arvalid_o(v_arvalid), .m_vram_arready_i(v_arready),
        .m_vram_rid_i(v_rid), .m_vram_rdata_i(v_rdata), .m_vram_rresp_i(v_rresp),
        .m_vram_rlast_i(v_rlast), .m_vram_rvalid_i(v_rvalid), .m_vram_rready_o(v_rready)
    );

    // ---- memories: host bytes then VRAM bytes in u_mem.mem, behind the two ports ----------
    logic [7:0]  refm [0:TOTAL-1];   // what they must hold
    logic [31:0] seed_h = 32'd1, seed_v = 32'd2;
    logic [6:0]  stall_pct = 7'd0;
    logic [7:0]  max_lat = 8'd0;
    integer      h_viol, v_viol, h_maxr, v_maxr, h_aw_n, v_aw_n, h_ar_n, v_ar_n;
    logic [1:0]  order = 2'd0;       // the memories' write order (tb_dma_axi_mem order_i)
    logic [7:0]  stall_run = 8'd1;
    integer      h_w_early, v_w_early;
    tb_dma_mems #(.HostBase(HOST_BASE), .HostBytes(HOST_BYTES), .VramBytes(VRAM_BYTES)) u_mem (.*);

    // ---- testbench MMU: VA page i -> VRAM page 16 + i (odd i: host page 8 + i / 2) ----------
    integer      mmu_delay = 0, mr, tpg, n_use_root = 0, n_root_bad = 0;
    logic        mmu_pend = 1'b0, mmu_taken = 1'b0;
    logic [63:0] tva;
    logic        exp_use_root = 1'b0;
    logic [31:0] exp_root = 32'h0;
    initial forever begin
        @(posedge clk);
        if (mmu_rsp_valid && mmu_rsp_ready) mmu_taken = 1'b1;
        if (mmu_req_valid && mmu_req_ready) begin
            tva = {16'h0, mmu_req_va};
            if (mmu_use_root) n_use_root = n_use_root + 1;
            if (mmu_use_root !== exp_use_root || (exp_use_root && mmu_root !== exp_root))
                n_root_bad = n_root_bad + 1;
            tpg = (tva >= VA_BASE && tva - VA_BASE < 64'(VA_PAGES) * 4096) ? 32'((tva - VA_BASE) >> 12) : -1;
            mmu_pend = 1'b1;
            xs(rng_mmu, 5, mmu_delay);
            mmu_rsp_fault = tpg < 0;
            mmu_rsp_type = tpg < 0 ? 3'd1 : 3'd0;
            mmu_rsp_system = tpg >= 0 && tpg % 2 == 1;
            mmu_rsp_cacheable = 1'b0;
            mmu_rsp_pa = 52'd0;
            if (tpg >= 0)
                mmu_rsp_pa = (tpg % 2 == 1) ? 52'(HOST_BASE + q64(8 + tpg / 2) * 4096 + 64'(tva[11:0]))
                                            : 52'(q64(16 + tpg) * 4096 + 64'(tva[11:0]));
        end
        @(negedge clk);
        if (mmu_taken) begin
            mmu_rsp_valid = 1'b0;
            mmu_taken = 1'b0;
        end
        xs(rng_mmu, 100, mr);
        mmu_req_ready = !mmu_pend && !mmu_rsp_valid && mr >= 30;
        if (mmu_pend && mmu_delay == 0) begin
            mmu_rsp_valid = 1'b1;
            mmu_pend = 1'b0;
        end else if (mmu_pend) mmu_delay = mmu_delay - 1;
    end

    function automatic logic [63:0] q64(input integer x);
        return 64'(x);
    endfunction

    function automatic integer loc(input logic [1:0] space, input logic [63:0] a);
        integer pg;
        if (space == 2'd2)
            return (a >= HOST_BASE && a - HOST_BASE < 64'(HOST_BYTES)) ? 32'(a - HOST_BASE) : -1;
        if (space == 2'd1) return a < 64'(VRAM_BYTES) ? HOST_BYTES + 32'(a) : -1;
        if (a < VA_BASE || a - VA_BASE >= 64'(VA_PAGES) * 4096) return -1;
        pg = 32'((a - VA_BASE) >> 12);
        if (pg % 2 == 1) return (8 + pg / 2) * 4096 + 32'(a[11:0]);
        return HOST_BYTES + (16 + pg) * 4096 + 32'(a[11:0]);
    endfunction

    // ---- monitors ------------------------------------------------------------------------------
    integer n_irq_fence = 0, n_irq_pre = 0, n_irq_fault = 0, n_tlb = 0, n_mc = 0, err_x = 0;
    always @(posedge clk) begin
        if (!rst) begin
            if (irq_fence) n_irq_fence <= n_irq_fence + 1;
            if (irq_pre) n_irq_pre <= n_irq_pre + 1;
            if (irq_fault) n_irq_fault <= n_irq_fault + 1;
            if (tlb_inv) n_tlb <= n_tlb + 1;
            if (mc_fault) n_mc <= n_mc + 1;
            if ((^{idle, preempted, hung, faulted, resetting, state, head, h_awvalid, h_wvalid,
                   h_arvalid, v_awvalid, v_wvalid, v_arvalid, irq_fence, irq_pre, irq_fault}) === 1'bx)
                err_x <= err_x + 1;
        end
    end

    // DMA_PERF_STALLS as rtl/dma/README.md defines it, counted from the W handshakes on the ports:
    // while an entry is in progress (busy), each cycle of a COPY or FILL in the data mover after
    // its first W beat without a W beat, but for the operation's last cycle. Which mover
    // operation is a COPY or FILL, and when it is held, is read from the mover (it is not
    // visible on the ports).
    integer n_stall_ref = 0;
    logic   st_cand = 1'b0, st_wbeg = 1'b0, st_act = 1'b0;
    wire    st_w = (h_wvalid && h_wready) || (v_wvalid && v_wready);
    wire    st_wbeg_now = st_act && st_wbeg;  // a new operation has written nothing yet
    always @(posedge clk) begin
        if (rst || soft_rst) begin
            st_cand <= 1'b0;
            st_wbeg <= 1'b0;
            st_act <= 1'b0;
        end else begin
            if (st_cand && dut.u_mover.op_active_o) n_stall_ref <= n_stall_ref + 1;
            st_cand <= dut.busy && dut.u_mover.op_active_o && dut.u_mover.data_q && st_wbeg_now &&
                       !st_w;
            st_wbeg <= dut.u_mover.op_active_o && (st_wbeg_now || st_w);
            st_act <= dut.u_mover.op_active_o;
        end
    end

    // ---- building commands in host memory (both copies: the engine reads them) --------------
    task automatic put64(input logic [63:0] a, input logic [63:0] v);
        integer i, g;
        g = loc(2'd2, a);
        for (i = 0; i < 8; i = i + 1) begin
            u_mem.mem[g + i] = v[i*8 +: 8];
            refm[g + i] = v[i*8 +: 8];
        end
    endtask
    function automatic logic [63:0] get64(input logic [63:0] a);
        integer i, g;
        logic [63:0] v;
        g = loc(2'd2, a);
        for (i = 0; i < 8; i = i + 1) v[i*8 +: 8] = u_mem.mem[g + i];
        return v;
    endfunction
    function automatic logic [63:0] hdr(input logic [7:0] op, input logic [1:0] src,
                                        input logic [1:0] dst, input logic irq, input logic [31:0] imm);
        return {imm, 19'd0, irq, dst, src, op};
    endfunction
    logic [63:0] wp;   // where the next command goes
    task automatic emit(input logic [63:0] q);
        put64(wp, q);
        wp = wp + 64'd8;
    endtask
    task automatic c_copy(input logic [1:0] ss, input logic [63:0] sa, input logic [1:0] ds,
                          input logic [63:0] da, input integer bytes);
        emit(hdr(8'h01, ss, ds, 1'b0, 32'd0)); emit(sa); emit(da); emit(q64(bytes));
    endtask
    task automatic c_fill(input logic [1:0] ds, input logic [63:0] da, input integer bytes,
                          input logic [31:0] pat);
        emit(hdr(8'h02, 2'd0, ds, 1'b0, pat)); emit(da); emit(q64(bytes));
    endtask
    task automatic c_fence(input logic [1:0] ds, input logic [63:0] da, input logic [63:0] v,
                           input logic irq);
        emit(hdr(8'h03, 2'd0, ds, irq, 32'd0)); emit(da); emit(v);
    endtask
    // Ring entry at `idx`, published by raising the tail past it; PRIV (a kernel entry) unless
    // e_priv is cleared.
    logic e_priv = 1'b1;
    task automatic entry(input integer idx, input logic [63:0] buf_a, input integer bytes,
                         input logic [31:0] fid, input logic use_root, input logic [51:12] root,
                         input logic irq);
        logic [63:0] e;
        e = RING + q64(idx % RING_N) * 64'd32;
        put64(e, buf_a);
        put64(e + 64'd8, {fid, 32'(bytes)});
        put64(e + 64'd16, {12'd0, root, 11'd0, use_root});
        put64(e + 64'd24, {62'd0, e_priv, irq});
    endtask

    // Reference effects of commands, applied when their entry is known to have run.
    task automatic ref_copy(input logic [1:0] ss, input logic [63:0] sa, input logic [1:0] ds,
                            input logic [63:0] da, input integer bytes);
        integer i;
        for (i = 0; i < bytes; i = i + 1) refm[loc(ds, da + 64'(i))] = refm[loc(ss, sa + 64'(i))];
    endtask
    task automatic ref_fill(input logic [1:0] ds, input logic [63:0] da, input integer bytes,
                            input logic [31:0] pat);
        integer i;
        for (i = 0; i < bytes; i = i + 1) refm[loc(ds, da + 64'(i))] = pat[(i % 4) * 8 +: 8];
    endtask
    task automatic ref_q(input logic [1:0] ds, input logic [63:0] da, input logic [63:0] v);
        integer i;
        for (i = 0; i < 8; i = i + 1) refm[loc(ds, da + 64'(i))] = v[i*8 +: 8];
    endtask
    // Bytes of [a, a + n) in a space that differ from the reference.
    task automatic diff(input logic [1:0] sp, input logic [63:0] a, input integer n, output integer bad);
        integer i;
        logic [17:0] g;  // TOTAL is 192 KiB
        bad = 0;
        for (i = 0; i < n; i = i + 1) begin
            g = 18'(loc(sp, a + 64'(i)));
            if (u_mem.mem[g] !== refm[g]) begin
                if (bad < 3) $display("#   %h (space %0d): %h, expected %h", a + 64'(i), sp, u_mem.mem[g], refm[g]);
                bad = bad + 1;
            end
        end
    endtask

    // Runs until the engine is idle with HEAD == TAIL (or halted, or a timeout).
    integer waited;
    task automatic run_quiet;
        waited = 0;
        @(negedge clk);
        while (!((idle && head == (tail & 16'hf)) || hung || faulted) && waited < TIMEOUT) begin
            @(negedge clk);
            waited = waited + 1;
        end
        if (waited >= TIMEOUT) $display("#   timed out: state %0d head %0d tail %0d (cycle %0d)", state, head, tail, cyc);
        repeat (2) @(negedge clk);  // the monitors count the pulses of the last edge
    endtask
    task automatic cycles(input integer n);
        repeat (n) @(negedge clk);
    endtask
    task automatic pulse_reset;
        @(negedge clk);
        dreset = 1'b1;
        @(negedge clk);
        dreset = 1'b0;
        waited = 0;
        while (!idle && waited < TIMEOUT) begin
            @(negedge clk);
            waited = waited + 1;
        end
    endtask

    // ---- the test -------------------------------------------------------------------------------
    initial begin : timeout_guard
        #(400000000);
        $display("Bail out! watchdog: simulation ran too long (seed=%0d)", seed);
        $fatal(1, "watchdog");
    end

    initial begin : main
        integer i, k, n, e, r, bad, bad_total, cmds0, fences_ok, sz, kind, n_entries, fire;
        integer first_e, ncmd;
        logic [63:0] a, b, buf_a, v, ts0;
        logic [31:0] irq0;
        logic [15:0] d16;
        logic ok;

        tb_start(PLAN);
        rng_q = 64'(seed) * 64'h9E3779B97F4A7C15 + 64'h5851F42D4C957F2D;
        rng_mmu = rng_q ^ 64'hA5A5A5A55A5A5A5A;
        seed_h = 32'(seed) * 32'd3 + 32'd1;
        seed_v = 32'(seed) * 32'd5 + 32'd2;
        for (i = 0; i < TOTAL; i = i + 1) begin
            rndn(256, r);
            u_mem.mem[i] = 8'(r);
            refm[i] = 8'(r);
        end
        for (i = 0; i < 16; i = i + 8) begin
            put64(FENCE_REC + 64'(i), 64'd0);
        end
        rst = 1'b1;
        cycles(5);
        rst = 1'b0;
        cycles(3);
        stall_pct = 7'd20;
        max_lat = 8'd6;
        // The write order a legal slave may impose: one per seed for the directed parts, every
        // one in turn for the random entries.
        order = 2'(seed % 4);
        check(idle && head == 16'd0 && state == 4'd0 && !hung && !faulted && !preempted,
              "after reset: idle, HEAD 0, no fault, no preemption");

        // ---- one entry with every command ----
        wp = CMDS;
        emit(hdr(8'h00, 2'd0, 2'd0, 1'b0, 32'd0));                                   // NOP
        c_copy(2'd2, HDATA + 64'h0010, 2'd1, 64'h0100, 1000);                        // host -> VRAM
        c_copy(2'd1, 64'h2000, 2'd2, HDATA + 64'h1008, 2048);                        // VRAM -> host
        c_copy(2'd0, VA_BASE + 64'h0ff0, 2'd0, VA_BASE + 64'h5008, 4128);            // VA -> VA, 3 pages
        c_fill(2'd1, 64'h4008, 480, 32'hA5A55A5A);
        c_fence(2'd2, HDATA + 64'h3000, 64'h0123456789ABCDEF, 1'b1);
        emit(hdr(8'h05, 2'd0, 2'd0, 1'b0, 32'd0));                                   // TLB_INVALIDATE
        emit(hdr(8'h06, 2'd0, 2'd1, 1'b0, 32'd0)); emit(64'h6000);                   // TIMESTAMP
        put64(HDATA + 64'h3100, 64'd9);
        emit(hdr(8'h07, 2'd2, 2'd0, 1'b0, 32'd0)); emit(HDATA + 64'h3100); emit(64'd9);  // WAIT, met
        emit(hdr(8'h04, 2'd0, 2'd0, 1'b0, 32'd0)); emit(CMDS + 64'h1000); emit(64'd24);  // INDIRECT
        n = 32'(wp - CMDS);
        wp = CMDS + 64'h1000;
        c_fill(2'd2, HDATA + 64'h3200, 64, 32'h11223344);
        entry(0, CMDS, n, 32'd100, 1'b1, 40'h30, 1'b1);
        exp_use_root = 1'b1;
        exp_root = 32'h0003_0000;
        ts0 = timestamp;
        cmds0 = $signed(perf_cmds);
        irq0 = n_irq_fence;
        enable = 1'b1;
        tail = 16'd1;
        run_quiet();
        ref_copy(2'd2, HDATA + 64'h0010, 2'd1, 64'h0100, 1000);
        ref_copy(2'd1, 64'h2000, 2'd2, HDATA + 64'h1008, 2048);
        ref_copy(2'd0, VA_BASE + 64'h0ff0, 2'd0, VA_BASE + 64'h5008, 4128);
        ref_fill(2'd1, 64'h4008, 480, 32'hA5A55A5A);
        ref_q(2'd2, HDATA + 64'h3000, 64'h0123456789ABCDEF);
        ref_fill(2'd2, HDATA + 64'h3200, 64, 32'h11223344);
        ref_q(2'd2, FENCE_REC, 64'd100);
        bad_total = 0;
        diff(2'd1, 64'h0000, 32'h5000, bad); bad_total = bad_total + bad;
        diff(2'd2, HDATA, 32'h4000, bad); bad_total = bad_total + bad;
        diff(2'd0, VA_BASE + 64'h5000, 32'h1100, bad); bad_total = bad_total + bad;
        diff(2'd2, FENCE_REC, 16, bad); bad_total = bad_total + bad;
        // the timestamp lies between the submission and now
        for (i = 0; i < 8; i = i + 1) v[i*8 +: 8] = u_mem.mem[HOST_BYTES + 32'h6000 + i];
        check(bad_total == 0 && !faulted && !hung,
              "every command: NOP, COPY (host/VRAM/VA), FILL, FENCE, TLB_INVALIDATE, TIMESTAMP, WAIT, INDIRECT, byte-exact");
        check(v > ts0 && v < timestamp && n_tlb == 1,
              $sformatf("TIMESTAMP wrote the counter (%0d, between %0d and %0d); TLB_INVALIDATE pulsed once", v, ts0, timestamp));
        ok = completed == 32'd100 && head == 16'd1 && n_irq_fence - irq0 == 2 &&
             $signed(perf_cmds) - cmds0 == 11 && perf_bytes == 64'(1000 + 2048 + 4128 + 480 + 64) &&
             perf_busy > 32'd0 && n_use_root > 0 && n_root_bad == 0;
        if (!ok) $display("#   completed %0d head %0d irqs %0d cmds %0d bytes %0d busy %0d root uses %0d bad %0d",
                          completed, head, n_irq_fence - irq0, $signed(perf_cmds) - cmds0, perf_bytes,
                          perf_busy, n_use_root, n_root_bad);
        check(ok,
              $sformatf("completion: COMPLETED_FENCE, HEAD, IRQ (FENCE + entry), %0d commands, bytes counted, USE_ROOT/ROOT on the MMU port (%0d)",
                        $signed(perf_cmds) - cmds0, n_use_root));
        exp_use_root = 1'b0;

        // ---- random entries: COPY, FILL, FENCE; fences in order ----
        stall_pct = 7'd35;
        max_lat = 8'd10;
        bad_total = 0;
        fences_ok = 1;
        n_entries = 0;
        for (k = 0; k < 6; k = k + 1) begin
            order = 2'((seed + k) % 4);
            stall_run = k % 2 == 1 ? 8'd24 : 8'd1;
            stall_pct = k % 2 == 1 ? 7'd6 : 7'd35;
            // 1, 3, ... 11 entries queued at once, then run; the reference takes each command
            // as it is written (entries and commands run in order)
            n = 1 + k * 2;
            first_e = $signed(32'(tail));
            for (e = 0; e < n; e = e + 1) begin
                buf_a = CMDS + 64'h2000 + q64(((first_e + e) % RING_N) * 256);
                wp = buf_a;
                rndn(4, ncmd);
                for (r = 0; r <= ncmd; r = r + 1) begin
                    rndn(3, kind);
                    rndn(400, sz);
                    sz = (sz + 1) * 8;
                    rndn(16, i);
                    a = q64(i * 64);                   // VRAM sources: below 0x4000
                    b = 64'h10000 + q64(((first_e + e) % RING_N) * 4096) + q64(r * 8);
                    if (kind == 0) begin
                        c_copy(2'd1, a, 2'd1, b, sz);
                        ref_copy(2'd1, a, 2'd1, b, sz);
                    end else if (kind == 1) begin
                        rndn(65536, i);
                        c_fill(2'd1, b, sz, 32'(i) ^ 32'h5A5A0000);
                        ref_fill(2'd1, b, sz, 32'(i) ^ 32'h5A5A0000);
                    end else begin
                        rnd64(v);
                        c_fence(2'd2, HDATA + 64'h4000 + q64(((first_e + e) % RING_N) * 8), v, 1'b0);
                        ref_q(2'd2, HDATA + 64'h4000 + q64(((first_e + e) % RING_N) * 8), v);
                    end
                end
                entry(first_e + e, buf_a, 32'(wp - buf_a), 32'(1000 + n_entries), 1'b0, 40'd0, 1'b0);
                n_entries = n_entries + 1;
            end
            tail = 16'((first_e + n) % RING_N);
            run_quiet();
            if (completed != 32'(1000 + n_entries - 1) || get64(FENCE_REC) != q64(1000 + n_entries - 1) ||
                head != tail || faulted || hung) fences_ok = 0;
        end
        ref_q(2'd2, FENCE_REC, q64(1000 + n_entries - 1));
        diff(2'd1, 64'h10000, 32'h10000, bad);
        bad_total = bad;
        diff(2'd2, HDATA + 64'h4000, 128, bad);
        bad_total = bad_total + bad;
        check(fences_ok == 1 && waited < TIMEOUT && bad_total == 0,
              $sformatf("random entries (%0d) of COPY/FILL/FENCE: byte-exact, in order; COMPLETED_FENCE and the fence record hold the last",
                        n_entries));
        check(h_viol == 0 && v_viol == 0, "protocol: both ports saw legal bursts only, WLAST and WSTRB right, payloads held");

        // ---- preemption in the middle of a stream ----
        stall_pct = 7'd20;
        first_e = $signed(32'(tail));
        for (e = 0; e < 5; e = e + 1) begin
            buf_a = CMDS + 64'h4000 + q64(e * 256);
            wp = buf_a;
            c_fence(2'd2, HDATA + 64'h5000 + q64(e * 8), q64(e + 1), 1'b0);
            c_fill(2'd1, 64'h18000 + q64(e * 4096), 4096, 32'(e) + 32'hC0DE0000);
            c_fence(2'd2, HDATA + 64'h5100 + q64(e * 8), q64(e + 1), 1'b0);
            entry(first_e + e, buf_a, 32'(wp - buf_a), 32'(2000 + e), 1'b0, 40'd0, 1'b0);
            put64(HDATA + 64'h5000 + q64(e * 8), 64'd0);
            put64(HDATA + 64'h5100 + q64(e * 8), 64'd0);
        end
        irq0 = n_irq_pre;
        tail = 16'((first_e + 5) % RING_N);
        rndn(1500, fire);
        cycles(300 + fire);
        @(negedge clk);
        preempt = 1'b1;
        @(negedge clk);
        preempt = 1'b0;
        waited = 0;
        while (n_irq_pre == irq0 && waited < TIMEOUT) begin
            @(negedge clk);
            waited = waited + 1;
        end
        cycles(2);
        // entries before STOP_HEAD ran completely, STOP_HEAD's first commands ran as STOP_OFFSET says
        d16 = (stop_head - 16'(first_e)) & 16'hf;  // entries completed before the stop
        k = 32'(d16);
        ok = preempted && idle && head == tail && stop_tail == tail && k <= 5 &&
             get64(FENCE_REC + 64'd8) == 64'(preempt_fence) &&
             (k == 0 ? completed == 32'(1000 + n_entries - 1) : completed == 32'(2000 + k - 1));
        for (e = 0; e < 5; e = e + 1) begin
            v = get64(HDATA + 64'h5000 + q64(e * 8));
            if ((e < k) != (v == q64(e + 1)) && !(e == k && stop_offset >= 32'd24 && v == q64(e + 1))) ok = 1'b0;
            v = get64(HDATA + 64'h5100 + q64(e * 8));
            if ((e < k) != (v == q64(e + 1))) ok = 1'b0;
        end
        if (!ok) $display("#   stop: head %0d tail %0d stop %0d..%0d offset %0d done %0d completed %0d k %0d",
                          head, tail, stop_head, stop_tail, stop_offset, stop_done, completed, k);
        check(ok && n_irq_pre == irq0 + 1 && (stop_offset == 32'd0 || stop_offset == 32'd24 || stop_offset == 32'd48) &&
              (stop_offset == 32'd24 ? stop_done < 32'd4096 && stop_done % 8 == 32'd0 : stop_done == 32'd0),
              $sformatf("preemption: STOP_HEAD %0d, STOP_TAIL, STOP_OFFSET %0d, STOP_DONE %0d, the fence record's second qword, one interrupt",
                        stop_head, stop_offset, stop_done));
        // resubmit the removed entries: all complete
        for (e = k; e < 5; e = e + 1) begin
            i = $signed(32'(tail));
            entry(i, CMDS + 64'h4000 + q64(e * 256), 72, 32'(2000 + e), 1'b0, 40'd0, 1'b0);
            tail = 16'((i + 1) % RING_N);
        end
        run_quiet();
        ok = !preempted && completed == 32'd2004;
        for (e = 0; e < 5; e = e + 1) begin
            ref_fill(2'd1, 64'h18000 + q64(e * 4096), 4096, 32'(e) + 32'hC0DE0000);
            if (get64(HDATA + 64'h5100 + q64(e * 8)) != q64(e + 1)) ok = 1'b0;
        end
        diff(2'd1, 64'h18000, 5 * 4096, bad);
        check(ok && bad == 0, "after the preemption the resubmitted entries complete; PREEMPTED clears when one starts");

        // ---- a WAIT that never ends: the watchdog, then an engine reset ----
        watchdog = 32'd2000;
        first_e = $signed(32'(tail));
        buf_a = CMDS + 64'h5000;
        wp = buf_a;
        put64(HDATA + 64'h6000, 64'd3);
        emit(hdr(8'h07, 2'd2, 2'd0, 1'b0, 32'd0)); emit(HDATA + 64'h6000); emit(64'd4);
        entry(first_e, buf_a, 24, 32'd3000, 1'b0, 40'd0, 1'b0);
        irq0 = n_irq_fault;
        i = cyc;
        tail = 16'((first_e + 1) % RING_N);
        run_quiet();
        i = cyc - i - 2;
        ok = hung && !faulted && fault_type == 4'd1 && fault_entry == 16'(first_e) &&
             fault_addr == buf_a && n_irq_fault == irq0 + 1 && i >= 2000 && i < 2000 + 300;
        if (!ok) $display("#   hang: hung %0d faulted %0d type %0d entry %0d addr %h (buf %h) irqs %0d",
                          hung, faulted, fault_type, fault_entry, fault_addr, buf_a, n_irq_fault - irq0);
        check(ok,
              $sformatf("a WAIT never met: HUNG after %0d cycles (watchdog 2000), type 1, the entry and the WAIT's address, one interrupt",
                        i));
        pulse_reset();
        check(idle && !hung && !resetting && state == 4'd0 && stop_head == 16'(first_e) &&
              stop_tail == tail && stop_offset == 32'd0 && head == tail && completed == 32'd2004,
              "engine reset: idle, HUNG cleared, STOP_HEAD/STOP_TAIL/STOP_OFFSET recorded, HEAD = TAIL, no fence");
        watchdog = 32'h0010_0000;

        // ---- a bad ring entry, a bad command ----
        first_e = $signed(32'(tail));
        buf_a = CMDS + 64'h5100;
        wp = buf_a;
        c_fence(2'd2, HDATA + 64'h6100, 64'd77, 1'b0);
        entry(first_e, buf_a, 20, 32'd3001, 1'b0, 40'd0, 1'b0);  // length not a multiple of 8
        put64(HDATA + 64'h6100, 64'd0);
        tail = 16'((first_e + 1) % RING_N);
        run_quiet();
        ok = faulted && fault_type == 4'd6 && fault_addr == RING + q64(first_e * 32) &&
             get64(HDATA + 64'h6100) == 64'd0;
        pulse_reset();
        first_e = $signed(32'(tail));
        wp = buf_a;
        c_fence(2'd2, HDATA + 64'h6100, 64'd78, 1'b0);
        emit(hdr(8'h01, 2'd3, 2'd1, 1'b0, 32'd0)); emit(64'd0); emit(64'd0); emit(64'd8);  // space 3
        entry(first_e, buf_a, 56, 32'd3002, 1'b0, 40'd0, 1'b0);
        tail = 16'((first_e + 1) % RING_N);
        run_quiet();
        check(ok && faulted && fault_type == 4'd4 && fault_addr == buf_a + 64'd24 &&
              get64(HDATA + 64'h6100) == 64'd78 && completed == 32'd2004,
              "a ring entry with a bad length and a command with space 3 fault (types 6 and 4, their addresses); the commands before ran");
        pulse_reset();

        // ---- entries without PRIV (a user context's): physical spaces, INDIRECT, no root ----
        e_priv = 1'b0;
        first_e = $signed(32'(tail));
        buf_a = CMDS + 64'h5180;
        wp = buf_a;
        c_fill(2'd0, VA_BASE + 64'h2000, 64, 32'h0bad_0bad);          // GPU VA: allowed (ref: see below)
        c_fill(2'd1, 64'h1_8000, 64, 32'h5a5a_5a5a);             // VRAM physical: privilege
        entry(first_e, buf_a, 48, 32'd3010, 1'b1, 40'h31, 1'b0);
        tail = 16'((first_e + 1) % RING_N);
        run_quiet();
        ref_fill(2'd0, VA_BASE + 64'h2000, 64, 32'h0bad_0bad);
        diff(2'd1, 64'h1_8000, 64, bad);
        diff(2'd0, VA_BASE + 64'h2000, 64, r);
        ok = faulted && fault_type == 4'd7 && fault_addr == buf_a + 64'd24 && bad == 0 && r == 0 &&
             fault_entry == 16'(first_e) && completed == 32'd2004;
        if (!ok) $display("#   priv FILL: faulted %0d type %0d addr %h (buf %h) bad %0d va %0d entry %0d completed %0d",
                          faulted, fault_type, fault_addr, buf_a, bad, r, fault_entry, completed);
        pulse_reset();
        first_e = $signed(32'(tail));
        wp = buf_a;
        c_copy(2'd2, HDATA + 64'h6200, 2'd0, VA_BASE + 64'h2100, 8);   // host physical source
        entry(first_e, buf_a, 32, 32'd3011, 1'b1, 40'h31, 1'b0);
        tail = 16'((first_e + 1) % RING_N);
        run_quiet();
        if (!(faulted && fault_type == 4'd7 && fault_addr == buf_a))
            $display("#   priv COPY: faulted %0d type %0d addr %h (buf %h)", faulted, fault_type, fault_addr, buf_a);
        ok = ok && faulted && fault_type == 4'd7 && fault_addr == buf_a;
        pulse_reset();
        first_e = $signed(32'(tail));
        wp = buf_a;
        emit(hdr(8'h04, 2'd0, 2'd0, 1'b0, 32'd0)); emit(CMDS + 64'h5300); emit(64'd8);  // INDIRECT
        put64(CMDS + 64'h5300, hdr(8'h03, 2'd0, 2'd2, 1'b0, 32'd0));
        entry(first_e, buf_a, 24, 32'd3012, 1'b1, 40'h31, 1'b0);
        tail = 16'((first_e + 1) % RING_N);
        run_quiet();
        if (!(faulted && fault_type == 4'd7 && fault_addr == buf_a && completed == 32'd2004))
            $display("#   priv INDIRECT: faulted %0d type %0d addr %h (buf %h) completed %0d", faulted, fault_type,
                     fault_addr, buf_a, completed);
        check(ok && faulted && fault_type == 4'd7 && fault_addr == buf_a && completed == 32'd2004,
              "entries without PRIV: a VRAM-physical FILL, a host-physical COPY source and an INDIRECT fault (type 7, the command's address), nothing written, the GPU VA FILL before ran");
        pulse_reset();
        first_e = $signed(32'(tail));
        wp = buf_a;
        c_fill(2'd0, VA_BASE + 64'h2200, 64, 32'h1234_5678);
        entry(first_e, buf_a, 24, 32'd3013, 1'b0, 40'd0, 1'b0);   // no USE_ROOT
        tail = 16'((first_e + 1) % RING_N);
        run_quiet();
        diff(2'd0, VA_BASE + 64'h2200, 64, bad);
        check(faulted && fault_type == 4'd7 && fault_addr == RING + q64(first_e * 32) && bad == 0 &&
              completed == 32'd2004,
              "an entry without PRIV and without USE_ROOT faults (type 7, the entry's address) before any command");
        pulse_reset();
        e_priv = 1'b1;

        check(perf_stalls == 32'(n_stall_ref) && perf_stalls > 32'd0,
              $sformatf("DMA_PERF_STALLS (%0d) equals the COPY/FILL cycles after their first W beat without one, counted on the ports (%0d)",
                        perf_stalls, n_stall_ref));

        // ---- core soft reset while copying ----
        first_e = $signed(32'(tail));
        buf_a = CMDS + 64'h5200;
        wp = buf_a;
        c_copy(2'd1, 64'h0, 2'd1, 64'h10000, 32768);
        entry(first_e, buf_a, 32, 32'd3003, 1'b0, 40'd0, 1'b0);
        tail = 16'((first_e + 1) % RING_N);
        cycles(600);
        @(negedge clk);
        soft_rst = 1'b1;
        enable = 1'b0;   // csr_regs returns the fields to their reset values at once
        tail = 16'd0;
        waited = 0;
        while (!idle && waited < TIMEOUT) begin
            @(negedge clk);
            waited = waited + 1;
        end
        @(negedge clk);   // one more cycle of soft reset with the engine idle
        soft_rst = 1'b0;
        cycles(2);
        check(idle && waited < TIMEOUT && head == 16'd0 && completed == 32'd0 && stop_head == 16'd0 &&
              stop_tail == 16'd0 && stop_offset == 32'd0 && fault_type == 4'd0 && !faulted &&
              perf_cmds == 32'd0 && perf_busy == 32'd0 && perf_bytes == 64'd0 && timestamp < 64'd10,
              $sformatf("a core soft reset during a copy drains (%0d cycles) and returns every DMA register to its reset value",
                        waited));

        stall_run = 8'd1;
        check(h_w_early > 0 && v_w_early > 0,
              $sformatf("W is not held for AWREADY: %0d host and %0d VRAM bursts had W before their AW", h_w_early,
                        v_w_early));
        check(h_viol == 0 && v_viol == 0 && err_x == 0,
              $sformatf("protocol: no violation on either port (%0d/%0d host, %0d/%0d VRAM bursts), no X",
                        h_aw_n, h_ar_n, v_aw_n, v_ar_n));
        if (h_viol != 0) $display("#   host: %s", u_mem.u_host.first);
        if (v_viol != 0) $display("#   VRAM: %s", u_mem.u_vram.first);

        tb_finish($sformatf(", %0d cycles", cyc));
    end

    wire unused_tb = ^{mmu_req_write, mc_fault_type, mc_fault_addr, mc_fault_write, fault_mmu, fault_write,
                       stop_done, perf_last, h_maxr, v_maxr, h_awprot, h_arprot, h_awcache,
                       h_arcache, h_awlock, h_arlock, v_awprot, v_arprot, v_awcache, v_arcache,
                       rng_mmu, n_mc};
endmodule
`default_nettype wire
