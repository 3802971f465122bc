// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// link_engine: the device end of the gpuref link protocol (bridge/PROTOCOL.md) between a PHY's
// byte or word streams and gpu_core's three AXI ports. Made of link_rx_align (SYNC hunt,
// header check), link_rx (PCRC, sequence numbers, receive buffer of 2^RxWindowLog2 words),
// link_dispatch (executes HELLO, RD32, WR32, AP_RD, AP_WR on m_csr / m_ap, hands DMA answers
// on), link_host_slave (s_host: gpu_core's DMA bursts as DMA_RD / DMA_WR requests by tag) and
// link_tx (replay buffer of 2^ReplayLog2 words, go-back-N, ACK/NAK/RESET_ACK, IRQ messages).
// Contract:
//   - rx_* / tx_*: the PHY's streams in the clk_i domain, PhyBytes bytes per beat, least
//     significant byte of each 32-bit word first. The engine takes and gives one beat per
//     cycle when the other side keeps up (one 32-bit word per cycle with PhyBytes = 4).
//   - m_csr_* (AXI4-Lite), m_ap_* (AXI4, 8-byte data, ID 0) master gpu_core's s_csr and s_ap;
//     s_host_* (AXI4, 8-byte data) is the slave behind gpu_core's m_host; irq_i is gpu_core's
//     irq_o (each change is sent as an IRQ message, and the level once after each HELLO_RSP).
//   - HELLO_RSP reports: version 1.0, MaxPayload, RxWindow = 2^RxWindowLog2, DmaTags,
//     LinkKind, Bar0Log2 16, Bar1Log2 28, CoreHz, ReplayTimeout, DmaTimeout, DmaBase/DmaSize 0.
//   - link_up_o: a HELLO has been answered since the last RESET. The counters (wrapping) count
//     frames with a bad HCRC or PCRC, NAKs sent, replays, bad frames (unknown TYPE or a payload
//     that does not fit it) and DMA requests that timed out.
//   - rst_i (synchronous) resets everything; a RESET frame resets the link state (see link_rx,
//     link_tx, link_dispatch, link_host_slave).
module link_engine #(
    parameter PhyBytes      = 4,          // 1 (UART, FT245) or 4 (FT601, stream)
    parameter MaxPayload    = 1024,       // words, >= 35
    parameter RxWindowLog2  = 12,         // receive buffer words, log2 (>= MaxPayload + 6)
    parameter ReplayLog2    = 12,         // replay buffer words, log2 (> MaxPayload)
    parameter DmaTags       = 8,          // DMA bursts outstanding: 2, 4, ... 64
    parameter DmaJoinWait   = 0,          // cycles a DMA_RD waits for a burst to join (0..255)
    parameter DmaJoinBeats  = 512,        // the most beats a DMA_RD asks for (16..512)
    parameter DmaWrJoinWait = 0,          // cycles a DMA_WR waits for a burst to join (0..255)
    parameter DmaWrJoinBeats = 512,       // the most beats a DMA_WR carries (16..512)
    parameter LinkKind      = 1,          // HELLO Link: 1 stream, 2 UART, 3 FT601, 4 FT245
    parameter CoreHz        = 100000000,  // clk_i frequency, reported in HELLO
    parameter ReplayTimeout = 100000,     // cycles without ACK progress before a replay
    parameter DmaTimeout    = 16777216,   // cycles before an unanswered DMA request fails
    parameter AckDelay      = 256,        // cycles a consumed frame waits for a piggyback ACK
    parameter CsrAddrBits   = 16,
    parameter ApAddrBits    = 28,
    parameter IdBits        = 4
) (
    input  wire                    clk_i,
    input  wire                    rst_i,   // synchronous, active high
    input  wire [PhyBytes*8-1:0]   rx_data_i,
    input  wire                    rx_valid_i,
    output wire                    rx_ready_o,
    output wire [PhyBytes*8-1:0]   tx_data_o,
    output wire                    tx_valid_o,
    input  wire                    tx_ready_i,
    output wire [CsrAddrBits-1:0]  m_csr_awaddr_o,
    output wire [2:0]              m_csr_awprot_o,
    output wire                    m_csr_awvalid_o,
    input  wire                    m_csr_awready_i,
    output wire [31:0]             m_csr_wdata_o,
    output wire [3:0]              m_csr_wstrb_o,
    output wire                    m_csr_wvalid_o,
    input  wire                    m_csr_wready_i,
    input  wire [1:0]              m_csr_bresp_i,
    input  wire                    m_csr_bvalid_i,
    output wire                    m_csr_bready_o,
    output wire [CsrAddrBits-1:0]  m_csr_araddr_o,
    output wire [2:0]              m_csr_arprot_o,
    output wire                    m_csr_arvalid_o,
    input  wire                    m_csr_arready_i,
    input  wire [31:0]             m_csr_rdata_i,
    input  wire [1:0]              m_csr_rresp_i,
    input  wire                    m_csr_rvalid_i,
    output wire                    m_csr_rready_o,
    output wire [IdBits-1:0]       m_ap_awid_o,
    output wire [ApAddrBits-1:0]   m_ap_awaddr_o,
    output wire [7:0]              m_ap_awlen_o,
    output wire [2:0]              m_ap_awsize_o,
    output wire [1:0]              m_ap_awburst_o,
    output wire                    m_ap_awlock_o,
    output wire [3:0]              m_ap_awcache_o,
    output wire [2:0]              m_ap_awprot_o,
    output wire                    m_ap_awvalid_o,
    input  wire                    m_ap_awready_i,
    output wire [63:0]             m_ap_wdata_o,
    output wire [7:0]              m_ap_wstrb_o,
    output wire                    m_ap_wlast_o,
    output wire                    m_ap_wvalid_o,
    input  wire                    m_ap_wready_i,
    input  wire [IdBits-1:0]       m_ap_bid_i,
    input  wire [1:0]              m_ap_bresp_i,
    input  wire                    m_ap_bvalid_i,
    output wire                    m_ap_bready_o,
    output wire [IdBits-1:0]       m_ap_arid_o,
    output wire [ApAddrBits-1:0]   m_ap_araddr_o,
    output wire [7:0]              m_ap_arlen_o,
    output wire [2:0]              m_ap_arsize_o,
    output wire [1:0]              m_ap_arburst_o,
    output wire                    m_ap_arlock_o,
    output wire [3:0]              m_ap_arcache_o,
    output wire [2:0]              m_ap_arprot_o,
    output wire                    m_ap_arvalid_o,
    input  wire                    m_ap_arready_i,
    input  wire [IdBits-1:0]       m_ap_rid_i,
    input  wire [63:0]             m_ap_rdata_i,
    input  wire [1:0]              m_ap_rresp_i,
    input  wire                    m_ap_rlast_i,
    input  wire                    m_ap_rvalid_i,
    output wire                    m_ap_rready_o,
    input  wire [IdBits-1:0]   s_host_awid_i,
    input  wire [63:0]         s_host_awaddr_i,
    input  wire [7:0]          s_host_awlen_i,
    input  wire [2:0]          s_host_awsize_i,
    input  wire [1:0]          s_host_awburst_i,
    input  wire                s_host_awlock_i,
    input  wire [3:0]          s_host_awcache_i,
    input  wire [2:0]          s_host_awprot_i,
    input  wire                s_host_awvalid_i,
    output wire                s_host_awready_o,
    input  wire [63:0]         s_host_wdata_i,
    input  wire [7:0]          s_host_wstrb_i,
    input  wire                s_host_wlast_i,
    input  wire                s_host_wvalid_i,
    output wire                s_host_wready_o,
    output wire [IdBits-1:0]   s_host_bid_o,
    output wire [1:0]          s_host_bresp_o,
    output wire                s_host_bvalid_o,
    input  wire                s_host_bready_i,
    input  wire [IdBits-1:0]   s_host_arid_i,
    input  wire [63:0]         s_host_araddr_i,
    input  wire [7:0]          s_host_arlen_i,
    input  wire [2:0]          s_host_arsize_i,
    input  wire [1:0]          s_host_arburst_i,
    input  wire                s_host_arlock_i,
    input  wire [3:0]          s_host_arcache_i,
    input  wire [2:0]          s_host_arprot_i,
    input  wire                s_host_arvalid_i,
    output wire                s_host_arready_o,
    output wire [IdBits-1:0]   s_host_rid_o,
    output wire [63:0]         s_host_rdata_o,
    output wire [1:0]          s_host_rresp_o,
    output wire                s_host_rlast_o,
    output wire                s_host_rvalid_o,
    input  wire                s_host_rready_i,
    input  wire                    irq_i,
    output reg                     link_up_o,
    output reg  [15:0]             crc_errs_o,
    output reg  [15:0]             naks_o,
    output reg  [15:0]             replays_o,
    output reg  [15:0]             bad_frames_o,
    output reg  [15:0]             dma_timeouts_o
);
    localparam integer PB = RxWindowLog2 + 1;

    generate
        if (ReplayLog2 < 6 || (1 << ReplayLog2) <= MaxPayload + 1) begin : g_bad_0
            `CMN_PARAM_ERROR("link_engine: the replay buffer must hold a frame of MaxPayload words")
        end
    endgenerate

    // ---- receive ------------------------------------------------------------------------
    wire        fr_valid, fr_ready, fr_hdr, fr_last, fr_crc_ok, hcrc_err;
    wire [63:0] fr_data;
    link_rx_align #(.PhyBytes(PhyBytes), .MaxPayload(MaxPayload)) u_align (
        .clk_i(clk_i), .rst_i(rst_i),
        .rx_data_i(rx_data_i), .rx_valid_i(rx_valid_i), .rx_ready_o(rx_ready_o),
        .fr_valid_o(fr_valid), .fr_ready_i(fr_ready), .fr_hdr_o(fr_hdr), .fr_data_o(fr_data),
        .fr_last_o(fr_last), .fr_crc_ok_o(fr_crc_ok), .hcrc_err_o(hcrc_err));

    wire                    buf_re;
    wire [RxWindowLog2-1:0] buf_raddr;
    wire [63:0]             buf_rdata;
    wire [PB-1:0]           buf_wptr, buf_rptr, lreset_ptr;
    wire                    consumed;
    wire [15:0]             ack_seq, peer_ack, lreset_epoch;
    wire                    peer_ack_valid, peer_nak, send_ack, send_nak, lreset;
    wire                    pcrc_err, rx_bad, dsp_bad, hello;
    wire [15:0]             hello_maxp;
    link_rx #(.RxWindowLog2(RxWindowLog2), .NakRetry(ReplayTimeout)) u_rx (
        .clk_i(clk_i), .rst_i(rst_i),
        .fr_valid_i(fr_valid), .fr_ready_o(fr_ready), .fr_hdr_i(fr_hdr), .fr_data_i(fr_data),
        .fr_last_i(fr_last), .fr_crc_ok_i(fr_crc_ok),
        .buf_re_i(buf_re), .buf_raddr_i(buf_raddr), .buf_rdata_o(buf_rdata),
        .buf_wptr_o(buf_wptr), .buf_rptr_i(buf_rptr), .consumed_i(consumed),
        .ack_seq_o(ack_seq), .peer_ack_valid_o(peer_ack_valid), .peer_ack_o(peer_ack),
        .peer_nak_o(peer_nak), .send_ack_o(send_ack), .send_nak_o(send_nak),
        .lreset_o(lreset), .lreset_epoch_o(lreset_epoch), .lreset_ptr_o(lreset_ptr),
        .crc_err_o(pcrc_err), .bad_frame_o(rx_bad));

    // ---- execute ------------------------------------------------------------------------
    wire        tw0_req, tw0_gnt, tw0_wvalid, tw0_wvalid2, tw0_done, tw0_commit;
    wire [15:0] tw0_len;
    wire [31:0] tw0_wdata, tw0_wdata2, tw0_head;
    wire [7:0]  tw0_type;
    wire        tw1_req, tw1_gnt, tw1_wvalid, tw1_done, tw1_commit;
    wire [15:0] tw1_len, unused_tw1_max;    // link_tx grants room for MaxPayload words
    wire [31:0] tw1_wdata, tw1_head;
    wire [7:0]  tw1_type;
    wire        hs_valid, hs_ready, hs_wr, hs_head, hs_last;
    wire [31:0] hs_data;
    link_dispatch #(
        .RxWindowLog2(RxWindowLog2), .MaxPayload(MaxPayload), .LinkKind(LinkKind),
        .DmaTags(DmaTags), .CoreHz(CoreHz), .ReplayTimeout(ReplayTimeout),
        .DmaTimeout(DmaTimeout), .CsrAddrBits(CsrAddrBits), .ApAddrBits(ApAddrBits),
        .IdBits(IdBits)
    ) u_dispatch (
        .clk_i(clk_i), .rst_i(rst_i),
        .buf_re_o(buf_re), .buf_raddr_o(buf_raddr), .buf_rdata_i(buf_rdata),
        .buf_wptr_i(buf_wptr), .buf_rptr_o(buf_rptr), .consumed_o(consumed),
        .lreset_i(lreset), .lreset_ptr_i(lreset_ptr),
        .tw_req_o(tw0_req), .tw_gnt_i(tw0_gnt), .tw_wvalid_o(tw0_wvalid),
        .tw_wdata_o(tw0_wdata), .tw_wvalid2_o(tw0_wvalid2), .tw_wdata2_o(tw0_wdata2),
        .tw_done_o(tw0_done), .tw_commit_o(tw0_commit),
        .tw_type_o(tw0_type), .tw_len_o(tw0_len), .tw_head_o(tw0_head),
        .hs_valid_o(hs_valid), .hs_ready_i(hs_ready), .hs_wr_o(hs_wr), .hs_head_o(hs_head),
        .hs_data_o(hs_data), .hs_last_o(hs_last),
        .m_csr_awaddr_o(m_csr_awaddr_o),
        .m_csr_awprot_o(m_csr_awprot_o),
        .m_csr_awvalid_o(m_csr_awvalid_o),
        .m_csr_awready_i(m_csr_awready_i),
        .m_csr_wdata_o(m_csr_wdata_o),
        .m_csr_wstrb_o(m_csr_wstrb_o),
        .m_csr_wvalid_o(m_csr_wvalid_o),
        .m_csr_wready_i(m_csr_wready_i),
        .m_csr_bresp_i(m_csr_bresp_i),
        .m_csr_bvalid_i(m_csr_bvalid_i),
        .m_csr_bready_o(m_csr_bready_o),
        .m_csr_araddr_o(m_csr_araddr_o),
        .m_csr_arprot_o(m_csr_arprot_o),
        .m_csr_arvalid_o(m_csr_arvalid_o),
        .m_csr_arready_i(m_csr_arready_i),
        .m_csr_rdata_i(m_csr_rdata_i),
        .m_csr_rresp_i(m_csr_rresp_i),
        .m_csr_rvalid_i(m_csr_rvalid_i),
        .m_csr_rready_o(m_csr_rready_o),
        .m_ap_awid_o(m_ap_awid_o),
        .m_ap_awaddr_o(m_ap_awaddr_o),
        .m_ap_awlen_o(m_ap_awlen_o),
        .m_ap_awsize_o(m_ap_awsize_o),
        .m_ap_awburst_o(m_ap_awburst_o),
        .m_ap_awlock_o(m_ap_awlock_o),
        .m_ap_awcache_o(m_ap_awcache_o),
        .m_ap_awprot_o(m_ap_awprot_o),
        .m_ap_awvalid_o(m_ap_awvalid_o),
        .m_ap_awready_i(m_ap_awready_i),
        .m_ap_wdata_o(m_ap_wdata_o),
        .m_ap_wstrb_o(m_ap_wstrb_o),
        .m_ap_wlast_o(m_ap_wlast_o),
        .m_ap_wvalid_o(m_ap_wvalid_o),
        .m_ap_wready_i(m_ap_wready_i),
        .m_ap_bid_i(m_ap_bid_i),
        .m_ap_bresp_i(m_ap_bresp_i),
        .m_ap_bvalid_i(m_ap_bvalid_i),
        .m_ap_bready_o(m_ap_bready_o),
        .m_ap_arid_o(m_ap_arid_o),
        .m_ap_araddr_o(m_ap_araddr_o),
        .m_ap_arlen_o(m_ap_arlen_o),
        .m_ap_arsize_o(m_ap_arsize_o),
        .m_ap_arburst_o(m_ap_arburst_o),
        .m_ap_arlock_o(m_ap_arlock_o),
        .m_ap_arcache_o(m_ap_arcache_o),
        .m_ap_arprot_o(m_ap_arprot_o),
        .m_ap_arvalid_o(m_ap_arvalid_o),
        .m_ap_arready_i(m_ap_arready_i),
        .m_ap_rid_i(m_ap_rid_i),
        .m_ap_rdata_i(m_ap_rdata_i),
        .m_ap_rresp_i(m_ap_rresp_i),
        .m_ap_rlast_i(m_ap_rlast_i),
        .m_ap_rvalid_i(m_ap_rvalid_i),
        .m_ap_rready_o(m_ap_rready_o),
        .hello_o(hello), .hello_maxp_o(hello_maxp), .bad_frame_o(dsp_bad));

    wire dma_timeout;
    link_host_slave #(.DmaTags(DmaTags), .DmaTimeout(DmaTimeout), .MaxPayload(MaxPayload),
                      .JoinWait(DmaJoinWait), .JoinBeats(DmaJoinBeats),
                      .WrJoinWait(DmaWrJoinWait), .WrJoinBeats(DmaWrJoinBeats), .IdBits(IdBits),
                      .AddrBits(64)) u_host (
        .clk_i(clk_i), .rst_i(rst_i), .lreset_i(lreset),
        .hello_i(hello), .hello_maxp_i(hello_maxp),
        .s_host_awid_i(s_host_awid_i),
        .s_host_awaddr_i(s_host_awaddr_i),
        .s_host_awlen_i(s_host_awlen_i),
        .s_host_awsize_i(s_host_awsize_i),
        .s_host_awburst_i(s_host_awburst_i),
        .s_host_awlock_i(s_host_awlock_i),
        .s_host_awcache_i(s_host_awcache_i),
        .s_host_awprot_i(s_host_awprot_i),
        .s_host_awvalid_i(s_host_awvalid_i),
        .s_host_awready_o(s_host_awready_o),
        .s_host_wdata_i(s_host_wdata_i),
        .s_host_wstrb_i(s_host_wstrb_i),
        .s_host_wlast_i(s_host_wlast_i),
        .s_host_wvalid_i(s_host_wvalid_i),
        .s_host_wready_o(s_host_wready_o),
        .s_host_bid_o(s_host_bid_o),
        .s_host_bresp_o(s_host_bresp_o),
        .s_host_bvalid_o(s_host_bvalid_o),
        .s_host_bready_i(s_host_bready_i),
        .s_host_arid_i(s_host_arid_i),
        .s_host_araddr_i(s_host_araddr_i),
        .s_host_arlen_i(s_host_arlen_i),
        .s_host_arsize_i(s_host_arsize_i),
        .s_host_arburst_i(s_host_arburst_i),
        .s_host_arlock_i(s_host_arlock_i),
        .s_host_arcache_i(s_host_arcache_i),
        .s_host_arprot_i(s_host_arprot_i),
        .s_host_arvalid_i(s_host_arvalid_i),
        .s_host_arready_o(s_host_arready_o),
        .s_host_rid_o(s_host_rid_o),
        .s_host_rdata_o(s_host_rdata_o),
        .s_host_rresp_o(s_host_rresp_o),
        .s_host_rlast_o(s_host_rlast_o),
        .s_host_rvalid_o(s_host_rvalid_o),
        .s_host_rready_i(s_host_rready_i),
        .tw_req_o(tw1_req), .tw_max_o(unused_tw1_max), .tw_gnt_i(tw1_gnt), .tw_wvalid_o(tw1_wvalid),
        .tw_wdata_o(tw1_wdata), .tw_done_o(tw1_done), .tw_commit_o(tw1_commit),
        .tw_type_o(tw1_type), .tw_len_o(tw1_len), .tw_head_o(tw1_head),
        .hs_valid_i(hs_valid), .hs_ready_o(hs_ready), .hs_wr_i(hs_wr), .hs_head_i(hs_head),
        .hs_data_i(hs_data), .hs_last_i(hs_last), .timeout_o(dma_timeout));

    // ---- transmit -----------------------------------------------------------------------
    wire [31:0] txw_data;
    wire        txw_valid, txw_ready, replay, nak_sent;
    link_tx #(.ReplayLog2(ReplayLog2), .MaxPayload(MaxPayload), .SlotLog2(5), .ReplayTimeout(ReplayTimeout),
              .AckDelay(AckDelay)) u_tx (
        .clk_i(clk_i), .rst_i(rst_i), .lreset_i(lreset), .lreset_epoch_i(lreset_epoch),
        .ack_seq_i(ack_seq), .peer_ack_valid_i(peer_ack_valid), .peer_ack_i(peer_ack),
        .peer_nak_i(peer_nak), .send_ack_i(send_ack), .send_nak_i(send_nak), .irq_i(irq_i),
        .irq_resend_i(hello),
        .tw0_req_i(tw0_req), .tw0_gnt_o(tw0_gnt),
        .tw0_wvalid_i(tw0_wvalid), .tw0_wdata_i(tw0_wdata), .tw0_wvalid2_i(tw0_wvalid2),
        .tw0_wdata2_i(tw0_wdata2), .tw0_done_i(tw0_done),
        .tw0_commit_i(tw0_commit), .tw0_type_i(tw0_type), .tw0_len_i(tw0_len),
        .tw0_head_i(tw0_head),
        .tw1_req_i(tw1_req), .tw1_gnt_o(tw1_gnt),
        .tw1_wvalid_i(tw1_wvalid), .tw1_wdata_i(tw1_wdata), .tw1_done_i(tw1_done),
        .tw1_commit_i(tw1_commit), .tw1_type_i(tw1_type), .tw1_len_i(tw1_len),
        .tw1_head_i(tw1_head),
        .tx_data_o(txw_data), .tx_valid_o(txw_valid), .tx_ready_i(txw_ready),
        .replay_o(replay), .nak_sent_o(nak_sent));

    generate
        if (PhyBytes == 1) begin : g_ser
            // words to bytes, least significant first, one byte per cycle
            reg [31:0] sh_q;
            reg [2:0]  n_q;
            assign txw_ready = (n_q == 3'd0) || (n_q == 3'd1 && tx_ready_i);
            assign tx_valid_o = n_q != 3'd0;
            assign tx_data_o = sh_q[7:0];
            always @(posedge clk_i) begin
                if (rst_i) begin
                    sh_q <= 32'd0;
                    n_q <= 3'd0;
                end else if (txw_valid && txw_ready) begin
                    sh_q <= txw_data;
                    n_q <= 3'd4;
                end else if (tx_valid_o && tx_ready_i) begin
                    sh_q <= {8'd0, sh_q[31:8]};
                    n_q <= n_q - 3'd1;
                end
            end
        end else begin : g_word
            assign txw_ready = tx_ready_i;
            assign tx_valid_o = txw_valid;
            assign tx_data_o = txw_data;
        end
    endgenerate

    // ---- status -------------------------------------------------------------------------
    always @(posedge clk_i) begin
        if (rst_i) begin
            link_up_o <= 1'b0;
            crc_errs_o <= 16'd0;
            naks_o <= 16'd0;
            replays_o <= 16'd0;
            bad_frames_o <= 16'd0;
            dma_timeouts_o <= 16'd0;
        end else begin
            if (hello) link_up_o <= 1'b1;
            if (lreset) link_up_o <= 1'b0;
            crc_errs_o <= crc_errs_o + {15'd0, hcrc_err} + {15'd0, pcrc_err};
            naks_o <= naks_o + {15'd0, nak_sent};
            replays_o <= replays_o + {15'd0, replay};
            bad_frames_o <= bad_frames_o + {15'd0, rx_bad} + {15'd0, dsp_bad};
            dma_timeouts_o <= dma_timeouts_o + {15'd0, dma_timeout};
        end
    end
endmodule
`default_nettype wire
