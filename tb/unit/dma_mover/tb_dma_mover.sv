// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_dma_mover: self-checking unit test of the DMA data mover (dma_mover with its dma_agen
// sides and dma_fifo) and its translation client (dma_xlate), under Icarus 11 and Verilator
// 5.006 --timing, against two AXI memory ports (tb/unit/common/tb_dma_mems) with random stalls
// and latencies and a testbench MMU with random delays.
//
// Output is TAP ("1..N", "# seed=S", one "ok"/"not ok" line per check; N does not depend on
// the seed); exits through $fatal when a check failed. Plusargs: +seed=N, +wave=<file>.
//
// Memory: host (64 KiB at bus 0x1_0000_0000) and VRAM (128 KiB at 0) held here, with a
// reference copy. GPU virtual pages 0..15 map onto the lower halves (sources), 16..31 onto the
// upper halves (destinations), host and VRAM pages interleaved, so a random COPY from a
// source space to a destination space never overlaps. Checked:
//   - random COPY/FILL/qword writes and sink reads over all three spaces, byte-exact, with the
//     bytes around each destination untouched; every burst INCR, <= 16 beats, inside 4 KiB,
//     no W before its AW, WLAST and WSTRB right, payloads held (tb_dma_axi_mem);
//   - a VRAM-to-VRAM copy streams at one beat per cycle; >= 4 read bursts in flight;
//   - stop (preemption) at a burst boundary: exactly the reported prefix written, no address
//     after the stop; stop with zero strobes (engine reset): the same, and it drains;
//   - faults: unmapped and read-only pages, DECERR on read and write, VA and VRAM addresses
//     out of range, VPR copy (nothing from the VPR leaves it), each with its address.
module tb_dma_mover;
    localparam integer PLAN = 25;
    localparam integer OPS = 160;
    localparam [63:0]  HOST_BASE = 64'h1_0000_0000;
    localparam integer HOST_BYTES = 65536;
    localparam integer VRAM_BYTES = 131072;
    localparam integer TOTAL = HOST_BYTES + VRAM_BYTES;
    localparam [63:0]  VA_BASE = 64'h0000_7000_0000_0000;
    localparam integer VA_PAGES = 64;
    localparam integer OP_TIMEOUT = 20000;

    logic clk = 1'b0;
    logic rst = 1'b1;
    initial forever #5 clk = ~clk;
    integer cyc = 0;
    always @(posedge clk) cyc <= cyc + 1;

    // ---- seed, waves, random numbers (xorshift64*), TAP checks: the kit --------------
`define TB_TOP tb_dma_mover
`include "tb/unit/common/tb_kit.svh"
    // The MMU and the sink draw from streams of their own, so the main thread's stream does
    // not depend on how the simulator orders processes within a time step.
    logic [63:0] rng_mmu = 64'h2, rng_sink = 64'h3;
    task automatic xs(inout logic [63:0] st, input integer n, output integer v);
        logic [31:0] r;
        st = st ^ (st >> 12);
        st = st ^ (st << 25);
        st = st ^ (st >> 27);
        r = 32'((st * 64'h2545F4914F6CDD1D) >> 32) % 32'(n);
        v = $signed(r);
    endtask

    // ---- DUT ------------------------------------------------------------------------------
    logic        op_valid = 1'b0, op_src_mem = 1'b0, op_dst_sink = 1'b0;
    logic [1:0]  op_src_space = 2'd0, op_dst_space = 2'd0;
    logic [63:0] op_src_addr = 64'd0, op_dst_addr = 64'd0, op_pattern = 64'd0;
    logic [60:0] op_beats = 61'd0;
    logic        op_vpr = 1'b0, op_data = 1'b0, op_prog = 1'b0;
    logic        stop = 1'b0, zero_strb = 1'b0, sink_ready = 1'b0;
    wire         op_ready, op_active, op_done, op_stopped, sink_valid, wr_pending, mv_idle;
    wire [63:0]  sink_data;
    wire [31:0]  done_bytes;
    wire         progress, bytes_pulse, stall, fault, fault_write;
    wire [3:0]   fault_type;
    wire [2:0]   fault_mmu;
    wire [63:0]  fault_addr;
    wire [1:0]   xreq_valid, xreq_ready, xreq_write, xrsp_valid;
    wire [3:0]   xreq_space;
    wire [127:0] xreq_addr;
    wire         xrsp_host, xrsp_cacheable, xrsp_vpr, xrsp_fault, xlate_idle;
    wire [63:0]  xrsp_pa;
    wire [3:0]   xrsp_type;
    wire [2:0]   xrsp_mmu;
    logic        vpr_en = 1'b0;
    logic [19:0] vpr_base = 20'd0, vpr_limit = 20'd0;
    wire         mmu_req_valid, mmu_req_write, mmu_use_root, mmu_rsp_ready;
    wire [47:0]  mmu_req_va;
    wire [31:0]  mmu_root;
    logic        mmu_req_ready = 1'b0, mmu_rsp_valid = 1'b0, mmu_rsp_system = 1'b0;
    logic        mmu_rsp_cacheable = 1'b0, mmu_rsp_fault = 1'b0;
    logic [51:0] mmu_rsp_pa = 52'd0;
    logic [2:0]  mmu_rsp_type = 3'd0;
    // AXI
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

    dma_mover #(.FifoBeats(128), .MaxReads(8), .MaxWrites(8), .HostIdBits(4), .VramIdBits(2),
                .VramAddrBits(32)) dut (
        .clk_i(clk), .rst_i(rst),
        .op_valid_i(op_valid), .op_ready_o(op_ready), .op_src_mem_i(op_src_mem),
        .op_src_space_i(op_src_space), .op_src_addr_i(op_src_addr), .op_dst_sink_i(op_dst_sink),
        .op_dst_space_i(op_dst_space), .op_dst_addr_i(op_dst_addr), .op_beats_i(op_beats),
        .op_pattern_i(op_pattern), .op_vpr_check_i(op_vpr), .op_data_i(op_data),
        .op_progress_i(op_prog), .stop_i(stop), .zero_strb_i(zero_strb),
        .op_active_o(op_active), .op_done_o(op_done), .op_stopped_o(op_stopped),
        .sink_valid_o(sink_valid), .sink_data_o(sink_data), .sink_ready_i(sink_ready),
        .wr_pending_o(wr_pending), .idle_o(mv_idle), .done_bytes_o(done_bytes),
        .progress_o(progress), .bytes_o(bytes_pulse), .stall_o(stall),
        .fault_o(fault), .fault_type_o(fault_type), .fault_mmu_type_o(fault_mmu),
        .fault_write_o(fault_write), .fault_addr_o(fault_addr),
        .xreq_valid_o(xreq_valid), .xreq_ready_i(xreq_ready), .xreq_space_o(xreq_space),
        .xreq_addr_o(xreq_addr), .xreq_write_o(xreq_write), .xrsp_valid_i(xrsp_valid),
        .xrsp_host_i(xrsp_host), .xrsp_pa_i(xrsp_pa), .xrsp_cacheable_i(xrsp_cacheable),
        .xrsp_vpr_i(xrsp_vpr), .xrsp_fault_i(xrsp_fault), .xrsp_type_i(xrsp_type),
        .xrsp_mmu_type_i(xrsp_mmu),
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

    dma_xlate #(.VramAddrBits(32)) u_xlate (
        .clk_i(clk), .rst_i(rst), .use_root_i(1'b0), .root_i(52'd0),
        .vpr_en_i(vpr_en), .vpr_base_i(vpr_base), .vpr_limit_i(vpr_limit),
        .vram_pages_i(21'h10_0000),  // all of the 32-bit VRAM space
        .req_valid_i(xreq_valid), .req_ready_o(xreq_ready), .req_space_i(xreq_space),
        .req_addr_i(xreq_addr), .req_write_i(xreq_write), .rsp_valid_o(xrsp_valid),
        .rsp_host_o(xrsp_host), .rsp_pa_o(xrsp_pa), .rsp_cacheable_o(xrsp_cacheable),
        .rsp_vpr_o(xrsp_vpr), .rsp_fault_o(xrsp_fault), .rsp_type_o(xrsp_type),
        .rsp_mmu_type_o(xrsp_mmu), .idle_o(xlate_idle),
        .mmu_req_valid_o(mmu_req_valid), .mmu_req_ready_i(mmu_req_ready),
        .mmu_req_va_o(mmu_req_va), .mmu_req_write_o(mmu_req_write),
        .mmu_req_use_root_o(mmu_use_root), .mmu_req_root_o(mmu_root),
        .mmu_rsp_valid_i(mmu_rsp_valid), .mmu_rsp_ready_o(mmu_rsp_ready),
        .mmu_rsp_pa_i(mmu_rsp_pa), .mmu_rsp_system_i(mmu_rsp_system),
        .mmu_rsp_cacheable_i(mmu_rsp_cacheable), .mmu_rsp_fault_i(mmu_rsp_fault),
        .mmu_rsp_fault_type_i(mmu_rsp_type)
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
    integer      n_order [0:3];      // random operations run under each order
    tb_dma_mems #(.HostBase(HOST_BASE), .HostBytes(HOST_BYTES), .VramBytes(VRAM_BYTES)) u_mem (.*);

    // ---- GPU virtual pages and the testbench MMU ------------------------------------------
    logic        va_valid [0:VA_PAGES-1];
    logic        va_sys [0:VA_PAGES-1];
    logic        va_wr [0:VA_PAGES-1];
    logic        va_cache [0:VA_PAGES-1];
    integer      va_page [0:VA_PAGES-1];   // host or VRAM page number
    localparam integer PG_UNMAPPED = 32, PG_READONLY = 41;
    localparam [63:0]  HOST_HALF = 64'h8000, VRAM_HALF = 64'h10000;  // the destinations' halves

    // One translation at a time, each taken and answered after random delays.
    integer      mmu_delay = 0, mr, tpg;
    logic        mmu_pend = 1'b0, mmu_taken = 1'b0;
    logic [63:0] tva;
    initial forever begin
        @(posedge clk);
        if (mmu_rsp_valid && mmu_rsp_ready) mmu_taken = 1'b1;
        if (mmu_req_valid && mmu_req_ready) begin
            tva = {16'h0, mmu_req_va};
            tpg = (tva >= VA_BASE && tva - VA_BASE < 64'(VA_PAGES) * 4096) ? 32'((tva - VA_BASE) >> 12) : -1;
            mmu_pend = 1'b1;
            xs(rng_mmu, 6, mmu_delay);
            mmu_rsp_fault = 1'b0;
            mmu_rsp_type = 3'd0;
            mmu_rsp_pa = 52'd0;
            mmu_rsp_system = 1'b0;
            mmu_rsp_cacheable = 1'b0;
            if (tpg < 0 || !va_valid[tpg]) begin
                mmu_rsp_fault = 1'b1;
                mmu_rsp_type = 3'd1;
            end else if (mmu_req_write && !va_wr[tpg]) begin
                mmu_rsp_fault = 1'b1;
                mmu_rsp_type = 3'd2;
            end else begin
                mmu_rsp_system = va_sys[tpg];
                mmu_rsp_cacheable = va_cache[tpg];
                mmu_rsp_pa = va_sys[tpg] ? 52'(HOST_BASE + 64'(va_page[tpg]) * 4096 + 64'(tva[11:0]))
                                         : 52'(64'(va_page[tpg]) * 4096 + 64'(tva[11:0]));
            end
        end
        @(negedge clk);
        if (mmu_taken) begin
            mmu_rsp_valid = 1'b0;
            mmu_taken = 1'b0;
        end
        xs(rng_mmu, 100, mr);
        mmu_req_ready = !mmu_pend && !mmu_rsp_valid && mr >= 40;
        if (mmu_pend && mmu_delay == 0) begin
            mmu_rsp_valid = 1'b1;
            mmu_pend = 1'b0;
        end else if (mmu_pend) mmu_delay = mmu_delay - 1;
    end

    // Where a byte of a space lives in mem/refm, or -1 (unmapped, out of range).
    function automatic integer loc(input logic [1:0] space, input logic [63:0] a);
        logic [5:0] pg;
        if (space == 2'd2) begin
            if (a >= HOST_BASE && a - HOST_BASE < 64'(HOST_BYTES)) return 32'(a - HOST_BASE);
            return -1;
        end
        if (space == 2'd1) begin
            if (a < 64'(VRAM_BYTES)) return HOST_BYTES + 32'(a);
            return -1;
        end
        if (a < VA_BASE || a - VA_BASE >= 64'(VA_PAGES) * 4096) return -1;
        pg = 6'((a - VA_BASE) >> 12);
        if (!va_valid[pg]) return -1;
        if (va_sys[pg]) return va_page[pg] * 4096 + 32'(a[11:0]);
        return HOST_BYTES + va_page[pg] * 4096 + 32'(a[11:0]);
    endfunction

    // ---- monitors --------------------------------------------------------------------------
    integer n_fault = 0, n_bytes = 0, n_progress = 0, err_addr_after_stop = 0, err_x = 0;
    integer n_stall = 0, err_attr = 0, n_cached = 0, n_uncached = 0, err_strb = 0;
    logic   p_zs = 1'b0, p_hwait = 1'b0, p_vwait = 1'b0;
    logic [3:0]  last_ftype = 4'd0;
    logic [2:0]  last_fmmu = 3'd0;
    logic        last_fwrite = 1'b0;
    logic [63:0] last_faddr = 64'd0;
    logic        p_stop = 1'b0, p_arv = 1'b0, p_awv = 1'b0;
    always @(posedge clk) begin
        if (!rst) begin
            if (fault) begin
                n_fault <= n_fault + 1;
                last_ftype <= fault_type;
                last_fmmu <= fault_mmu;
                last_fwrite <= fault_write;
                last_faddr <= fault_addr;
            end
            if (bytes_pulse) n_bytes <= n_bytes + 8;
            if (stall) n_stall <= n_stall + 1;
            // Once zero_strb_i is up, a W beat not already waiting goes with zero strobes.
            if (p_zs && ((h_wvalid && h_wready && h_wstrb != 8'h00 && !p_hwait) ||
                         (v_wvalid && v_wready && v_wstrb != 8'h00 && !p_vwait)))
                err_strb <= err_strb + 1;
            // AxCACHE 1111 (cacheable leaf) or 0011, AxPROT 0, no exclusive access
            if ((h_arvalid && (h_arprot != 3'd0 || h_arlock || (h_arcache != 4'b0011 && h_arcache != 4'b1111))) ||
                (h_awvalid && (h_awprot != 3'd0 || h_awlock || (h_awcache != 4'b0011 && h_awcache != 4'b1111))) ||
                (v_arvalid && (v_arprot != 3'd0 || (v_arcache != 4'b0011 && v_arcache != 4'b1111))) ||
                (v_awvalid && (v_awprot != 3'd0 || (v_awcache != 4'b0011 && v_awcache != 4'b1111))))
                err_attr <= err_attr + 1;
            if ((h_arvalid && h_arready && h_arcache == 4'b1111) || (v_awvalid && v_awready && v_awcache == 4'b1111))
                n_cached <= n_cached + 1;
            if ((h_arvalid && h_arready && h_arcache == 4'b0011) || (v_awvalid && v_awready && v_awcache == 4'b0011))
                n_uncached <= n_uncached + 1;
            if (progress) n_progress <= n_progress + 1;
            // After a stop no new address may come: VALID may only stay high, never rise.
            if (p_stop && stop && (((h_arvalid || v_arvalid) && !p_arv) || ((h_awvalid || v_awvalid) && !p_awv)))
                err_addr_after_stop <= err_addr_after_stop + 1;
            if ((^{op_ready, op_active, op_done, sink_valid, wr_pending, mv_idle, h_awvalid,
                   h_wvalid, h_arvalid, v_awvalid, v_wvalid, v_arvalid, fault}) === 1'bx)
                err_x <= err_x + 1;
        end
        p_stop <= stop;
        p_zs <= zero_strb;
        p_hwait <= h_wvalid && !h_wready;
        p_vwait <= v_wvalid && !v_wready;
        p_arv <= h_arvalid || v_arvalid;
        p_awv <= h_awvalid || v_awvalid;
    end

    // stall_o as rtl/dma/README.md defines DMA_PERF_STALLS, counted from the ports: a cycle of a
    // COPY or FILL (op_active_o, op_data_i taken at the handshake) after its first W beat
    // without a W handshake on either port, except the operation's last cycle (the one after
    // which op_active_o falls). Also, per operation, the cycle it was first held, its first and
    // last W beats and their number.
    integer n_stall_ref = 0;
    logic   mon_data = 1'b0, mon_cand = 1'b0, mon_wbeg = 1'b0;
    wire    mon_w = (h_wvalid && h_wready) || (v_wvalid && v_wready);
    integer op_hold_cyc = 0, op_first_w = -1, op_last_w = -1, op_w_beats = 0;
    always @(posedge clk) begin
        if (rst) begin
            mon_cand <= 1'b0;
        end else begin
            // A cycle counted when the next one shows that it was not the operation's last.
            if (mon_cand && op_active) n_stall_ref <= n_stall_ref + 1;
            mon_cand <= op_active && mon_data && mon_wbeg && !mon_w;
            if (op_valid && op_ready) begin
                mon_data <= op_data;
                mon_wbeg <= 1'b0;
                op_hold_cyc <= cyc + 1;
                op_first_w <= -1;
                op_w_beats <= 0;
            end else if (op_active && mon_w) begin
                mon_wbeg <= 1'b1;
                if (op_first_w < 0) op_first_w <= cyc;
                op_last_w <= cyc;
                op_w_beats <= op_w_beats + 1;
            end
        end
    end

    // The sink: random READY, every qword compared with what was queued.
    logic [63:0] exp_q [0:255];
    integer      exp_wr = 0, exp_rd = 0, sink_bad = 0, sink_n = 0;
    integer      sr;
    initial forever begin
        @(posedge clk);
        if (sink_valid && sink_ready) begin
            if (exp_rd == exp_wr || sink_data !== exp_q[exp_rd % 256]) begin
                if (sink_bad < 5) $display("#   sink qword %0d: %h, expected %h", sink_n, sink_data,
                                           exp_q[exp_rd % 256]);
                sink_bad = sink_bad + 1;
            end
            exp_rd = exp_rd + 1;
            sink_n = sink_n + 1;
        end
        @(negedge clk);
        xs(rng_sink, 100, sr);
        sink_ready = sr >= 30;
    end

    task automatic note_fault;
        $display("#   last fault: type %0d mmu %0d write %0d addr %h (%0d faults)", last_ftype,
                 last_fmmu, last_fwrite, last_faddr, n_fault);
    endtask

    // Outputs the checks do not look at: the translation port's root (USE_ROOT is dma_top's
    // business), the host port's read concurrency.
    wire unused_tb = ^{mmu_use_root, mmu_root, h_maxr, rng_mmu, rng_sink};

    // ---- operations ------------------------------------------------------------------------
    integer op_cycles = 0;   // from the op's handshake to op_done
    logic   last_stopped = 1'b0;
    logic   op_timeout = 1'b0;

    // Hands one operation over and waits until it ended and nothing is outstanding.
    // stop_after >= 0: raise stop that many cycles after the handshake (zs: with zero strobes).
    task automatic run_op(input logic src_mem, input logic [1:0] ss, input logic [63:0] sa,
                          input logic dst_sink, input logic [1:0] ds, input logic [63:0] da,
                          input integer beats, input logic [63:0] pat, input logic data,
                          input integer stop_after, input logic zs);
        integer t0, n;
        @(negedge clk);
        op_src_mem = src_mem;
        op_src_space = ss;
        op_src_addr = sa;
        op_dst_sink = dst_sink;
        op_dst_space = ds;
        op_dst_addr = da;
        op_beats = 61'(beats);
        op_pattern = pat;
        op_vpr = src_mem && !dst_sink;
        op_data = data;
        op_prog = 1'b1;
        op_valid = 1'b1;
        @(posedge clk);
        while (!op_ready) @(posedge clk);
        t0 = cyc;
        @(negedge clk);
        op_valid = 1'b0;
        n = 0;
        while (!op_done && n < OP_TIMEOUT) begin
            if (stop_after >= 0 && n == stop_after) begin
                stop = 1'b1;
                zero_strb = zs;
            end
            @(posedge clk);
            n = n + 1;
            if (!op_done) @(negedge clk);
        end
        op_cycles = cyc - t0;
        last_stopped = op_stopped;
        if (n >= OP_TIMEOUT) begin
            $display("Bail out! operation timed out (cycle %0d, seed=%0d, write order %0d, stall run %0d; host AW %b/%b W %b/%b, VRAM AW %b/%b W %b/%b)",
                     cyc, seed, order, stall_run, h_awvalid, h_awready, h_wvalid, h_wready, v_awvalid, v_awready,
                     v_wvalid, v_wready);
            $fatal(1, "timeout");
        end
        n = 0;
        @(negedge clk);
        while (!(mv_idle && xlate_idle) && n < OP_TIMEOUT) begin
            @(negedge clk);
            n = n + 1;
        end
        if (n >= OP_TIMEOUT) begin
            $display("Bail out! drain timed out (cycle %0d, seed=%0d)", cyc, seed);
            $fatal(1, "timeout");
        end
        stop = 1'b0;
        zero_strb = 1'b0;
    endtask

    // The reference: a COPY or FILL of `bytes` bytes, or its first `bytes` when stopped.
    task automatic ref_apply(input logic src_mem, input logic [1:0] ss, input logic [63:0] sa,
                             input logic [1:0] ds, input logic [63:0] da, input integer bytes,
                             input logic [63:0] pat);
        integer i, s, d;
        for (i = 0; i < bytes; i = i + 1) begin
            d = loc(ds, da + 64'(i));
            s = src_mem ? loc(ss, sa + 64'(i)) : -1;
            if (d >= 0) refm[d] = src_mem ? (s >= 0 ? refm[s] : 8'h00) : pat[(i % 8) * 8 +: 8];
        end
    endtask

    // mem == refm over the destination range and `margin` bytes on each side.
    task automatic ref_check(input logic [1:0] ds, input logic [63:0] da, input integer bytes,
                             input integer margin, output integer bad);
        integer i, d;
        bad = 0;
        for (i = -margin; i < bytes + margin; i = i + 1) begin
            d = loc(ds, da + 64'(i));
            if (d >= 0 && u_mem.mem[d] !== refm[d]) begin
                if (bad < 3) $display("#   byte %0d of the destination (0x%h): %h, expected %h", i,
                                      da + 64'(i), u_mem.mem[d], refm[d]);
                bad = bad + 1;
            end
        end
    endtask

    // After a fault, how much was written is timing's business: the destination must hold a
    // prefix of whole qwords of the new data and the old data after it. Takes the prefix into
    // the reference; bad counts qwords that are neither.
    task automatic ref_prefix(input logic src_mem, input logic [1:0] ss, input logic [63:0] sa,
                              input logic [1:0] ds, input logic [63:0] da, input integer bytes,
                              input logic [63:0] pat, output integer bad, output integer pre);
        integer q, b, s, d;
        logic is_new, is_old, in_pre;
        logic [7:0] nv;
        bad = 0;
        pre = 0;
        in_pre = 1'b1;
        for (q = 0; q < bytes / 8; q = q + 1) begin
            is_new = 1'b1;
            is_old = 1'b1;
            for (b = 0; b < 8; b = b + 1) begin
                d = loc(ds, da + 64'(q * 8) + 64'(b));
                s = src_mem ? loc(ss, sa + 64'(q * 8) + 64'(b)) : -1;
                nv = src_mem ? (s >= 0 ? refm[s] : 8'h00) : pat[b * 8 +: 8];
                if (d >= 0) begin
                    if (u_mem.mem[d] !== nv) is_new = 1'b0;
                    if (u_mem.mem[d] !== refm[d]) is_old = 1'b0;
                end
            end
            if (in_pre && is_new) pre = pre + 8;
            else begin
                in_pre = 1'b0;
                if (!is_old) bad = bad + 1;
            end
        end
        ref_apply(src_mem, ss, sa, ds, da, pre, pat);
    endtask

    // Queue what a sink read of `beats` qwords must return.
    task automatic expect_sink(input logic [1:0] ss, input logic [63:0] sa, input integer beats);
        integer i, b, s;
        logic [63:0] q;
        for (i = 0; i < beats; i = i + 1) begin
            for (b = 0; b < 8; b = b + 1) begin
                s = loc(ss, sa + 64'(i * 8) + 64'(b));
                q[b*8 +: 8] = s >= 0 ? refm[s] : 8'h00;
            end
            exp_q[exp_wr % 256] = q;
            exp_wr = exp_wr + 1;
        end
    endtask

    // A random source (lower halves, VA pages 0..15) or destination (upper halves, 16..31)
    // range of `beats` qwords in space sp.
    task automatic pick_range(input logic dst, input logic [1:0] sp, input integer beats,
                              output logic [63:0] a);
        integer region, base_off, r;
        logic [63:0] base;
        if (sp == 2'd2) begin
            region = HOST_BYTES / 2;
            base = HOST_BASE + (dst ? HOST_HALF : 64'd0);
        end else if (sp == 2'd1) begin
            region = VRAM_BYTES / 2;
            base = dst ? VRAM_HALF : 64'd0;
        end else begin
            region = 16 * 4096;
            base = VA_BASE + (dst ? 64'(16 * 4096) : 64'd0);
        end
        rndn(region / 8 - beats + 1, r);
        base_off = r * 8;
        a = base + 64'(base_off);
    endtask

    // ---- the test ---------------------------------------------------------------------------
    initial begin : timeout_guard
        #(400000000);
        $display("Bail out! watchdog: simulation ran too long (seed=%0d)", seed);
        $fatal(1, "watchdog");
    end

    initial begin : main
        integer i, k, r, beats, bad, bad_total, kind, n_copy, n_fill, n_sink, n_wr;
        logic [1:0] sp_s, sp_d;
        integer bytes_exp, done, ok_all, n_stopped, sizes;
        logic [63:0] sa, da, pat;
        logic [31:0] w0, w1;
        logic ok;

        tb_start(PLAN);
        rng_q = 64'(seed) * 64'h9E3779B97F4A7C15 + 64'h5851F42D4C957F2D;
        rng_mmu = rng_q ^ 64'hA5A5A5A55A5A5A5A;
        rng_sink = rng_q ^ 64'h0123456789ABCDEF;
        seed_h = 32'(seed) * 32'd3 + 32'd1;
        seed_v = 32'(seed) * 32'd5 + 32'd2;
        for (i = 0; i < TOTAL; i = i + 1) begin
            rnd32(w0);
            u_mem.mem[i] = w0[7:0];
            refm[i] = w0[7:0];
        end
        // VA pages: 0..15 onto the lower halves, 16..31 onto the upper halves; odd pages host.
        for (i = 0; i < VA_PAGES; i = i + 1) begin
            va_valid[i] = 1'b0;
            va_sys[i] = 1'b0;
            va_wr[i] = 1'b1;
            rnd32(w0);
            va_cache[i] = w0[0];
            va_page[i] = 0;
        end
        for (i = 0; i < 32; i = i + 1) begin
            va_valid[i] = 1'b1;
            va_sys[i] = i[0];
            k = (i % 16) / 2;                                   // 0..7
            if (i[0]) va_page[i] = (i >= 16 ? 8 : 0) + k;       // host pages 0-7 / 8-15
            else va_page[i] = (i >= 16 ? 16 : 0) + 15 - 2 * k;  // VRAM pages, shuffled
        end
        va_valid[PG_READONLY] = 1'b1;
        va_wr[PG_READONLY] = 1'b0;
        va_page[PG_READONLY] = 20;

        rst = 1'b1;
        repeat (5) @(posedge clk);
        @(negedge clk);
        rst = 1'b0;
        repeat (3) @(negedge clk);

        // ---- random operations under random stalls and latencies ----
        bad_total = 0;
        ok_all = 1;
        n_copy = 0; n_fill = 0; n_sink = 0; n_wr = 0;
        for (k = 0; k < 4; k = k + 1) n_order[k] = 0;
        bytes_exp = 0;
        for (i = 0; i < OPS; i = i + 1) begin
            if (i % 20 == 0) begin
                rndn(70, r);
                stall_pct = 7'(r);
                if ((i / 20) % 3 == 0) stall_pct = 7'd0;
                rndn(16, r);
                max_lat = 8'(r);
                // every legal write order in turn, READY stalls of one cycle or long stretches
                order = 2'((i / 20) % 4);
                // long stretches (up to 48 cycles) start on fewer cycles, or nothing would move
                rndn(2, r);
                stall_run = r == 0 ? 8'd1 : 8'd48;
                if (r != 0) stall_pct = stall_pct / 7'd8;
            end
            n_order[order] = n_order[order] + 1;
            rndn(3, r);
            sp_s = 2'(r);
            rndn(3, r);
            sp_d = 2'(r);
            rndn(100, kind);
            rndn(10, r);
            if (r < 7) rndn(400, beats);
            else rndn(2000, beats);
            beats = beats + 1;
            rnd32(w0);
            rnd32(w1);
            pat = {w1, w0};
            if (kind < 55) begin
                pick_range(1'b0, sp_s, beats, sa);
                pick_range(1'b1, sp_d, beats, da);
                run_op(1'b1, sp_s, sa, 1'b0, sp_d, da, beats, 64'd0, 1'b1, -1, 1'b0);
                ref_apply(1'b1, sp_s, sa, sp_d, da, beats * 8, 64'd0);
                ref_check(sp_d, da, beats * 8, 64, bad);
                n_copy = n_copy + 1;
                bytes_exp = bytes_exp + beats * 8;
            end else if (kind < 75) begin
                pick_range(1'b1, sp_d, beats, da);
                run_op(1'b0, 2'd0, 64'd0, 1'b0, sp_d, da, beats, pat, 1'b1, -1, 1'b0);
                ref_apply(1'b0, 2'd0, 64'd0, sp_d, da, beats * 8, pat);
                ref_check(sp_d, da, beats * 8, 64, bad);
                n_fill = n_fill + 1;
                bytes_exp = bytes_exp + beats * 8;
            end else if (kind < 90) begin
                rndn(40, beats);
                beats = beats + 1;
                rnd32(w0);
                pick_range(w0[0], sp_s, beats, sa);
                expect_sink(sp_s, sa, beats);
                run_op(1'b1, sp_s, sa, 1'b1, 2'd0, 64'd0, beats, 64'd0, 1'b0, -1, 1'b0);
                bad = 0;
                n_sink = n_sink + 1;
            end else begin
                pick_range(1'b1, sp_d, 1, da);
                run_op(1'b0, 2'd0, 64'd0, 1'b0, sp_d, da, 1, pat, 1'b0, -1, 1'b0);
                ref_apply(1'b0, 2'd0, 64'd0, sp_d, da, 8, pat);
                ref_check(sp_d, da, 8, 16, bad);
                n_wr = n_wr + 1;
            end
            if (last_stopped || op_timeout || exp_rd != exp_wr) ok_all = 0;
            bad_total = bad_total + bad;
        end
        check(bad_total == 0, $sformatf("random ops: %0d COPY, %0d FILL, %0d qword writes byte-exact, neighbours untouched",
                                       n_copy, n_fill, n_wr));
        check(sink_bad == 0 && exp_rd == exp_wr,
              $sformatf("random ops: %0d sink reads (%0d qwords) return the memory's qwords in order", n_sink, sink_n));
        check(ok_all == 1 && n_fault == 0 && n_stall > 0 && n_stall == n_stall_ref,
              $sformatf("random ops: each completes (not stopped, no fault) and drains; stall_o: %0d cycles, %0d by its definition counted on the ports",
                        n_stall, n_stall_ref));
        check(n_bytes == bytes_exp, $sformatf("bytes_o counts every qword COPY and FILL wrote (%0d bytes)", n_bytes));

        // ---- throughput: no stalls, no latency, memories that take AW only once they have W
        // (the engine must still stream). Not AW only after WLAST here: the operation ends when
        // its last AW is taken, one cycle after its last W beat, and by stall_o's definition
        // that cycle is a stall. ----
        stall_pct = 7'd0;
        max_lat = 8'd0;
        stall_run = 8'd1;
        order = 2'd1;
        while (!mv_idle) @(negedge clk);  // the last random op's write responses
        k = n_stall;
        run_op(1'b1, 2'd1, 64'h0000, 1'b0, 2'd1, 64'h10000, 2048, 64'd0, 1'b1, -1, 1'b0);
        ref_apply(1'b1, 2'd1, 64'h0000, 2'd1, 64'h10000, 16384, 64'd0);
        ref_check(2'd1, 64'h10000, 16384, 8, bad);
        k = n_stall - k;
        $display("# VRAM->VRAM 16 KiB: %0d cycles (2048 beats), first W beat %0d cycles after the op was taken, %0d stall cycles",
                 op_cycles, op_first_w - op_hold_cyc, k);
        // W back to back from the first beat to the last: no bubble, so exactly 0 stall cycles
        // (the cycles before the first beat, the read latency, are not stalls).
        check(bad == 0 && op_cycles <= 2048 + 40 && op_w_beats == 2048 &&
              op_last_w - op_first_w == 2047 && k == 0 && op_first_w - op_hold_cyc > 0,
              $sformatf("a 16 KiB VRAM-to-VRAM copy streams one beat per cycle (%0d cycles for 2048 beats), stall_o exactly 0 (counted %0d)",
                        op_cycles, k));
        run_op(1'b1, 2'd2, HOST_BASE + 64'h0100, 1'b0, 2'd1, 64'h14100, 1024, 64'd0, 1'b1, -1, 1'b0);
        ref_apply(1'b1, 2'd2, HOST_BASE + 64'h0100, 2'd1, 64'h14100, 8192, 64'd0);
        ref_check(2'd1, 64'h14100, 8192, 8, bad);
        check(bad == 0 && op_cycles <= 1024 + 40,
              $sformatf("an 8 KiB host-to-VRAM copy, both unaligned to 128 bytes, streams too (%0d cycles)", op_cycles));

        // ---- read bursts in flight under latency ----
        order = 2'd0;
        max_lat = 8'd60;
        run_op(1'b1, 2'd1, 64'h4000, 1'b0, 2'd2, HOST_BASE + 64'h8000, 2048, 64'd0, 1'b1, -1, 1'b0);
        ref_apply(1'b1, 2'd1, 64'h4000, 2'd2, HOST_BASE + 64'h8000, 16384, 64'd0);
        ref_check(2'd2, HOST_BASE + 64'h8000, 16384, 8, bad);
        check(bad == 0 && v_maxr >= 4, $sformatf("with 0..60 cycles of latency, %0d read bursts were in flight at once (>= 4)",
                                                 v_maxr));
        max_lat = 8'd8;

        // ---- stop (preemption) at a burst boundary ----
        bad_total = 0;
        n_stopped = 0;
        sizes = 0;
        for (i = 0; i < 12; i = i + 1) begin
            stall_pct = (i % 2 == 0) ? 7'd30 : 7'd0;
            rndn(3, r);
            sp_s = 2'(r);
            rndn(3, r);
            sp_d = 2'(r);
            pick_range(1'b0, sp_s, 1500, sa);
            pick_range(1'b1, sp_d, 1500, da);
            rndn(900, k);
            rnd32(w0);
            pat = {w0, ~w0};
            run_op(i % 3 != 2, sp_s, sa, 1'b0, sp_d, da, 1500, pat, 1'b1, k + 20, 1'b0);
            done = $signed(done_bytes);
            if (last_stopped) n_stopped = n_stopped + 1;
            if (done % 8 != 0 || done >= 12000) bad_total = bad_total + 1;
            ref_apply(i % 3 != 2, sp_s, sa, sp_d, da, done, pat);
            ref_check(sp_d, da, 12000, 8, bad);
            bad_total = bad_total + bad;
            sizes = sizes + done;
        end
        check(bad_total == 0 && n_stopped == 12,
              $sformatf("stop: 12 COPY/FILL stopped early, exactly the first done_bytes written (%0d bytes in all)", sizes));
        check(err_addr_after_stop == 0, "stop: no new AR or AW after stop_i");

        // ---- stop with zero strobes (engine reset): drains ----
        bad_total = 0;
        n_stopped = 0;
        for (i = 0; i < 8; i = i + 1) begin
            stall_pct = 7'd40;
            pick_range(1'b0, 2'd1, 1500, sa);
            pick_range(1'b1, 2'(i % 3), 1500, da);
            rndn(700, k);
            run_op(1'b1, 2'd1, sa, 1'b0, 2'(i % 3), da, 1500, 64'd0, 1'b1, k + 30, 1'b1);
            done = $signed(done_bytes);
            if (last_stopped) n_stopped = n_stopped + 1;
            if (done % 8 != 0) bad_total = bad_total + 1;
            ref_apply(1'b1, 2'd1, sa, 2'(i % 3), da, done, 64'd0);
            ref_check(2'(i % 3), da, 12000, 8, bad);
            bad_total = bad_total + bad;
        end
        check(bad_total == 0 && n_stopped == 8 && !op_timeout && err_strb == 0,
              "reset drain: remaining W beats go with zero strobes (only done_bytes written), everything drains");

        // ---- faults ----
        stall_pct = 7'd20;
        // unmapped page under a read
        k = n_fault;
        sa = VA_BASE + 64'(PG_UNMAPPED) * 4096 - 64'h100;
        run_op(1'b1, 2'd0, sa, 1'b0, 2'd1, 64'h18000, 64, 64'd0, 1'b1, -1, 1'b0);
        ref_prefix(1'b1, 2'd0, sa, 2'd1, 64'h18000, 512, 64'd0, bad, done);
        if (!(last_ftype == 4'd2 && last_fmmu == 3'd1)) note_fault();
        check(last_stopped && n_fault == k + 1 && last_ftype == 4'd2 && last_fmmu == 3'd1 &&
              !last_fwrite && last_faddr == VA_BASE + 64'(PG_UNMAPPED) * 4096 && bad == 0 && done <= 256,
              "fault: a read of an unmapped GPU VA page: type 2 (MMU), unmapped, the page's first address");
        // read-only page under a write
        k = n_fault;
        da = VA_BASE + 64'(PG_READONLY) * 4096 + 64'h40;
        run_op(1'b0, 2'd0, 64'd0, 1'b0, 2'd0, da, 8, 64'h1234, 1'b1, -1, 1'b0);
        if (!(last_ftype == 4'd2 && last_fmmu == 3'd2)) note_fault();
        check(last_stopped && n_fault == k + 1 && last_ftype == 4'd2 && last_fmmu == 3'd2 &&
              last_fwrite && last_faddr == da && u_mem.mem[HOST_BYTES + 20 * 4096 + 64] === refm[HOST_BYTES + 20 * 4096 + 64],
              "fault: a write to a read-only page: type 2, write to read-only, its address, nothing written");
        // DECERR on reads: past the end of host memory
        k = n_fault;
        sa = HOST_BASE + 64'(HOST_BYTES) - 64'h40;
        run_op(1'b1, 2'd2, sa, 1'b0, 2'd1, 64'h18000, 32, 64'd0, 1'b1, -1, 1'b0);
        ref_prefix(1'b1, 2'd2, sa, 2'd1, 64'h18000, 256, 64'd0, bad, done);
        if (!(last_ftype == 4'd3 && last_faddr == HOST_BASE + 64'(HOST_BYTES))) note_fault();
        check(last_stopped && n_fault == k + 1 && last_ftype == 4'd3 && !last_fwrite &&
              last_faddr == HOST_BASE + 64'(HOST_BYTES) && bad == 0 && done <= 64,
              "fault: a read answered DECERR: type 3 (bus error) at the first failing beat");
        // DECERR on writes: past the end of VRAM
        k = n_fault;
        da = 64'(VRAM_BYTES) - 64'h40;
        run_op(1'b0, 2'd0, 64'd0, 1'b0, 2'd1, da, 32, 64'h55, 1'b1, -1, 1'b0);
        ref_prefix(1'b0, 2'd0, 64'd0, 2'd1, da, 256, 64'h55, bad, done);
        if (!(last_ftype == 4'd3 && last_faddr == 64'(VRAM_BYTES))) note_fault();
        // (the data may all be sent before the B says so: the fault comes after the op)
        check(n_fault == k + 1 && last_ftype == 4'd3 && last_fwrite &&
              last_faddr == 64'(VRAM_BYTES) && bad == 0,
              "fault: a write answered DECERR: type 3, write, the failing burst's address");
        // GPU VA beyond 48 bits, VRAM beyond 4 GiB: refused without a bus access
        k = n_fault;
        w0 = h_ar_n + v_ar_n;
        run_op(1'b1, 2'd0, 64'h0001_0000_0000_0000, 1'b0, 2'd1, 64'h18000, 4, 64'd0, 1'b1, -1, 1'b0);
        ok = last_stopped && n_fault == k + 1 && last_ftype == 4'd2 && last_fmmu == 3'd1;
        run_op(1'b1, 2'd1, 64'h1_0000_0000, 1'b0, 2'd1, 64'h18000, 4, 64'd0, 1'b1, -1, 1'b0);
        check(ok && last_stopped && n_fault == k + 2 && last_ftype == 4'd3 &&
              last_faddr == 64'h1_0000_0000 && h_ar_n + v_ar_n == w0,
              "fault: a VA past 48 bits (unmapped) and a VRAM address past 4 GiB (bus error), nothing issued");

        // ---- VPR ----
        // VRAM pages 2 and 3 protected; a copy of pages 1..4 to the upper half faults at page 2.
        vpr_en = 1'b1;
        vpr_base = 20'd2;
        vpr_limit = 20'd4;
        stall_pct = 7'd25;
        k = n_fault;
        sa = 64'h1000 + 64'h0c0;
        da = 64'h1a000 + 64'h048;   // another offset in the page: write bursts do not align
        run_op(1'b1, 2'd1, sa, 1'b0, 2'd1, da, 1024, 64'd0, 1'b1, -1, 1'b0);
        ref_apply(1'b1, 2'd1, sa, 2'd1, da, 32'h2000 - 32'h10c0, 64'd0);  // all before page 2
        ref_check(2'd1, da, 8192, 8, bad);
        check(last_stopped && n_fault == k + 1 && last_ftype == 4'd5 && !last_fwrite &&
              last_faddr == 64'h2000 && bad == 0,
              "VPR: a copy out of the VPR faults (type 5, at the first protected source byte); everything before it is written, nothing after");
        // inside the VPR to inside the VPR is allowed
        k = n_fault;
        run_op(1'b1, 2'd1, 64'h2000, 1'b0, 2'd1, 64'h3800, 256, 64'd0, 1'b1, -1, 1'b0);
        ref_apply(1'b1, 2'd1, 64'h2000, 2'd1, 64'h3800, 2048, 64'd0);
        ref_check(2'd1, 64'h3800, 2048, 0, bad);
        check(!last_stopped && n_fault == k && bad == 0, "VPR: a copy inside the VPR runs");
        // a FILL into it, and a protected page read into the sink (not a copy), are fine
        k = n_fault;
        run_op(1'b0, 2'd0, 64'd0, 1'b0, 2'd1, 64'h2100, 16, 64'h77, 1'b1, -1, 1'b0);
        ref_apply(1'b0, 2'd0, 64'd0, 2'd1, 64'h2100, 128, 64'h77);
        expect_sink(2'd1, 64'h2100, 4);
        run_op(1'b1, 2'd1, 64'h2100, 1'b1, 2'd0, 64'd0, 4, 64'd0, 1'b0, -1, 1'b0);
        ref_check(2'd1, 64'h2100, 128, 0, bad);
        check(n_fault == k && bad == 0 && sink_bad == 0, "VPR: a FILL into it and a read into the sequencer are not copies");
        vpr_en = 1'b0;

        // ---- after all that, the mover still works ----
        stall_pct = 7'd30;
        pick_range(1'b0, 2'd0, 700, sa);
        pick_range(1'b1, 2'd2, 700, da);
        run_op(1'b1, 2'd0, sa, 1'b0, 2'd2, da, 700, 64'd0, 1'b1, -1, 1'b0);
        ref_apply(1'b1, 2'd0, sa, 2'd2, da, 5600, 64'd0);
        ref_check(2'd2, da, 5600, 64, bad);
        check(bad == 0 && !last_stopped, "after stops and faults an operation runs normally");

        // ---- the whole memory and the protocol ----
        bad = 0;
        for (i = 0; i < TOTAL; i = i + 1) if (u_mem.mem[i] !== refm[i]) bad = bad + 1;
        check(bad == 0, $sformatf("the whole memory matches the reference (%0d bytes differ)", bad));
        if (h_viol != 0) $display("#   host port: %0d violations, first: %s", h_viol, u_mem.u_host.first);
        if (v_viol != 0) $display("#   VRAM port: %0d violations, first: %s", v_viol, u_mem.u_vram.first);
        check(h_viol == 0, $sformatf("host port: every burst legal (INCR, <= 16 beats, inside 4 KiB), WLAST/WSTRB, held payloads (%0d writes, %0d reads)",
                                     h_aw_n, h_ar_n));
        check(v_viol == 0, $sformatf("VRAM port: the same (%0d writes, %0d reads)", v_aw_n, v_ar_n));
        check(err_x == 0 && !op_timeout, "no X on the outputs, no operation timed out");
        // AXI A3.3.1: W never waits for AWREADY. Memories that take AW only after W got W first.
        check(n_order[0] > 0 && n_order[1] > 0 && n_order[2] > 0 && n_order[3] > 0 && h_w_early > 0 && v_w_early > 0,
              $sformatf("every write order ran (%0d/%0d/%0d/%0d ops: any, AW after W, AW after WLAST, W after AW); W came before its AW in %0d host and %0d VRAM bursts",
                        n_order[0], n_order[1], n_order[2], n_order[3], h_w_early, v_w_early));
        check(err_attr == 0 && n_cached > 0 && n_uncached > 0,
              $sformatf("AxCACHE 1111 or 0011 (%0d and %0d bursts), AxPROT 0, AxLOCK 0", n_cached, n_uncached));

        tb_finish($sformatf(", %0d cycles", cyc));
    end
endmodule
`default_nettype wire
