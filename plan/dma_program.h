#pragma once
// A layer's DMA program under memory: hierarchy, as data: which blocks move between
// HBM and the scratchpad, in which order, where they live in HBM, and which buffer
// slot each one waits for. sim/mapper/dma_plan.h makes it (its header says how);
// the memory models execute it as given; `cstsim plan` prints it.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/dataflow.h"
#include "plan/fold_plan.h"

namespace cstsim {

// Blocks start on this boundary in HBM and move whole (a multiple of both
// HBM2's and HBM3's 32 B burst), so every level counts the same bytes.
inline constexpr uint64_t kBlockAlign = 64;
// A block's bytes as it is stored and moved: rounded up to kBlockAlign.
inline int64_t padded_block(int64_t bytes) {
  return (bytes + int64_t(kBlockAlign) - 1) / int64_t(kBlockAlign) * int64_t(kBlockAlign);
}

enum class Operand { Stationary, Stream, Output };
const char* to_string(Operand o);

// A point in a fold's life that frees a buffer slot.
enum class FoldPoint {
  LoadDone,   // its stationary tile is in the weight banks (start + r): WS, IS tiles
  LastInput,  // its last input has entered the array (+1): stream slices, OS tiles
};

// A DMA descriptor: `rows` rows of `row_bytes`, `pitch` bytes apart in HBM from `hbm_addr`
// (rows == 1: one contiguous run of `bytes`, a tiled block); bytes = rows x row_bytes.
struct DmaTransfer {
  Operand operand = Operand::Stationary;
  bool write = false;     // scratchpad -> HBM
  uint64_t hbm_addr = 0;  // where its first row starts
  int64_t bytes = 0;
  int fold = 0;           // reads: the first fold that needs it; writes: the fold after which it goes
  // Reads: the slot it fills is free once fold `after_fold` has reached `after`
  // (-1: free from the start). Writes: the first fold whose results it carries.
  int after_fold = -1;
  FoldPoint after = FoldPoint::LoadDone;
  int first_fold = 0;
  int64_t rows = 1, row_bytes = 0, pitch = 0;  // strided (hbm.layout: row_major); rows == 1: contiguous

  // HBM address of the transfer's byte `offset`, and the bytes left in its row from there.
  uint64_t addr_at(int64_t offset) const {
    return rows == 1 ? hbm_addr + uint64_t(offset) : hbm_addr + uint64_t(offset / row_bytes * pitch + offset % row_bytes);
  }
  int64_t left_in_row(int64_t offset) const { return rows == 1 ? bytes - offset : row_bytes - offset % row_bytes; }
};

// How HBM holds the operands (hbm.layout). Tiled: the compiler stores every DMA block
// contiguously (one descriptor row). RowMajor: A[M x K], B[K x N] and C[M x N] lie row by row,
// each row padded to kBlockAlign, so a block is `rows` strided rows, each the kBlockAlign-aligned
// run that covers its columns (a block whose columns do not start on that boundary also moves
// its neighbours' bytes, as a DMA of whole bursts does). The most a block can take: with
// `aligned_start` false, one more kBlockAlign per row.
inline int64_t block_bytes(int64_t rows, int64_t row_len, bool row_major, bool aligned_start = true) {
  return row_major ? rows * (padded_block(row_len) + (aligned_start ? 0 : int64_t(kBlockAlign)))
                   : padded_block(rows * row_len);
}

// The three matrices of a layer's GEMM, as tensors in HBM: A (M x K, the ifmap side), B (K x N,
// the weights), C (M x N, the outputs).
enum class Matrix { A, B, C };
inline constexpr int kMatrices = 3;
// The matrix the array's stationary tiles come from (B under WS and OS, A under IS) and the one
// it streams (the other), by the roles table (plan/dataflow.h).
inline Matrix tile_matrix(Dataflow d) { return roles(d).tile_is_filter ? Matrix::B : Matrix::A; }
inline Matrix stream_matrix(Dataflow d) { return roles(d).tile_is_filter ? Matrix::A : Matrix::B; }

// Where one pass's share of a matrix lies in HBM. Tiled: its blocks lie one after another from
// `base`. Row-major: `base` is the whole tensor's first byte and `pitch` its padded row; the
// pass's share starts at row `row0`, column `col0` of it (pitch 0: the share is the tensor).
struct MatrixPlace {
  uint64_t base = 0;
  int64_t pitch = 0, row0 = 0, col0 = 0;
};

// The mapper's choices for one pass (sim/mapper/dma_plan.h makes them and checks
// that they fit): where each operand lives in the scratchpad, how many slots it
// gets, and where the pass's share of each matrix lies in HBM.
struct DmaBuffers {
  int fifo_tiles = 0;
  // OS: K chunks per output tile (FoldPlan::with_k_chunks) when the filter partition cannot hold
  // a column fold's whole block of B: then every fold (a chunk) reads its own chunk of B, and
  // its row fold's chunk of A, and the PEs keep the partial sums. 1: whole blocks.
  int64_t k_chunks = 1;
  bool stream_resident = false, output_resident = false;
  // Scratchpad partition of each operand ("ifmap", "filter", "ofmap") and its bytes.
  std::string stationary_partition, stream_partition;
  int64_t stationary_slot = 0, stream_slot = 0, output_slot = 0;  // bytes per slot
  int64_t stationary_partition_bytes = 0, stream_partition_bytes = 0, output_partition_bytes = 0;
  // A PE word of A and of B as they lie in HBM and the scratchpad, in bits (core/precision.h:
  // whole bytes, or less: int4 weights for an int8 PE).
  int a_word_bits = 8, b_word_bits = 8;
  int word_bits(Matrix x) const { return x == Matrix::B ? b_word_bits : a_word_bits; }
  // Bytes `words` consecutive words of A or B take (the last partly filled), and the byte a word
  // index starts in.
  int64_t words_bytes(Matrix x, int64_t words) const { return (words * word_bits(x) + 7) / 8; }
  int64_t byte_of_word(Matrix x, int64_t word) const { return word * word_bits(x) / 8; }
  int output_bits = 8;        // a requantized output (one value, not a word), in HBM
  int64_t output_bytes(int64_t values) const { return (values * output_bits + 7) / 8; }
  std::array<MatrixPlace, kMatrices> hbm{};  // A, B, C (Matrix), when hbm_placed
  bool hbm_placed = false;  // false: the pass lies alone from address 0 (lay_out_dma_program)
  bool row_major = false;     // hbm.layout: row_major (block_bytes); convolutions' raw ifmap blocks stay tiled
  // Convolutions (WS): when raw_channels > 0, the stream operand is the raw ifmap rows this
  // pass needs, halo included, read once and resident; the lowering to the array's im2col
  // stream happens on chip, between the scratchpad and the array. In HBM the ifmap is laid out
  // in blocks of raw_block_channels channels (NHWC within a block), one DMA read per block the
  // first time a fold's reduction rows (K value k = tap x channels + channel; a fold row is a word
  // of `pack` of them) touch it. 0: im2col rows.
  int64_t raw_channels = 0, raw_block_channels = 0;
  int64_t raw_channel_values = 0;  // one channel of the pass's input rows, in values
  int raw_value_bits = 8;          // a stored value of A
  int64_t raw_block_bytes(int64_t channels) const { return (raw_channel_values * channels * raw_value_bits + 7) / 8; }
  int64_t raw_stream_bytes() const { return raw_block_bytes(raw_channels); }
  // OS and IS convolutions: the folds run over output pixels (OS: a row fold's rows, its stream
  // slice; IS: a column fold's columns, its row folds' tiles), so each such fold reads instead
  // the raw input rows its pixels see, every channel: the pass's input rows lie in HBM as one
  // NHWC block from input row raw_first_row (one input row = raw_row_bytes), and a fold's read is
  // the kBlockAlign-aligned run that covers its rows (raw_run_of). Under IS one run per column
  // fold serves all of its row folds' tiles, lowered on chip, and takes a slot of the tile FIFO.
  enum class RawRows : uint8_t { None, StreamPerRowFold, TilesPerColumnFold };
  RawRows raw_rows_for = RawRows::None;
  int64_t raw_row_bytes = 0, raw_out_w = 0, raw_stride = 1, raw_filter_h = 1, raw_ifmap_h = 0;
  int64_t raw_m0 = 0;         // the pass's first output pixel (fold rows count from it)
  int64_t raw_first_row = 0;  // the pass's first input row
  int64_t raw_rows = 0;       // input rows of the pass
  // Input rows [first, last) that output pixels [m0, m1) of the layer read. SCALE-Sim's output
  // size counts windows that run past the ifmap (its implicit zero padding), so with a stride
  // the last output rows may see no input row at all: then first == last.
  std::pair<int64_t, int64_t> raw_rows_of(int64_t m0, int64_t m1) const {
    const int64_t y0 = m0 / raw_out_w, y1 = (m1 - 1) / raw_out_w;
    const int64_t first = std::min(raw_ifmap_h, y0 * raw_stride);
    return {first, std::max(first, std::min(raw_ifmap_h, y1 * raw_stride + raw_filter_h))};
  }
  // Whether the pass's blocks lie row-major (hbm.layout: row_major and no raw lowering), else tiled.
  bool lays_row_major() const { return row_major && raw_channels == 0 && raw_rows_for == RawRows::None; }
  // The aligned byte run [from, to) of the pass's raw block that output pixels [m0, m1) read.
  std::pair<int64_t, int64_t> raw_run_of(int64_t m0, int64_t m1) const {
    const auto [first, last] = raw_rows_of(m0, m1);
    const int64_t a = int64_t(kBlockAlign);
    return {(first - raw_first_row) * raw_row_bytes / a * a, padded_block((last - raw_first_row) * raw_row_bytes)};
  }
};

// The buffers, and the transfers laid out for them fold by fold.
struct LayerDmaPlan : DmaBuffers {
  std::vector<DmaTransfer> reads;   // DMA read queue, in issue order
  std::vector<DmaTransfer> writes;  // DMA write queue, in issue order
  FoldPoint tile_frees = FoldPoint::LoadDone;  // when a fold is done with its tile
  std::vector<int> stationary_read;  // per fold: index into reads (shared by a column fold under OS)
  std::vector<int> stream_read;      // per fold: index into reads (shared while resident)
  std::vector<int> writeback_after;  // per fold: index into writes issued when it ends, or -1
  std::vector<int> output_wait;      // per fold: index into writes that must be done first, or -1
  // Tiled: the bytes laid out from each matrix's base (MatrixPlace), per Matrix.
  std::array<int64_t, kMatrices> placed{};
  uint64_t hbm_end = 0;              // one past the pass's highest byte in HBM
  int passes = 1;                    // stream passes of the layer (stream_passes), for printing

  int64_t read_bytes() const;
  int64_t write_bytes() const;
};

// How a layer is split across `clusters` identical arrays: each takes a
// contiguous run of column folds (the Sc dimension of roles(): WS and OS output
// columns N, IS output rows M), that is its own stationary tiles and its own
// outputs, and streams the whole other operand (every cluster reads all of it, at the
// same HBM addresses). Cluster k gets column folds [floor(k F / n), floor((k+1) F / n))
// of F; a share can be empty.
struct ClusterShare {
  int64_t M = 0, N = 0, K = 0;
  Dim split = Dim::N;     // the dimension cut between clusters
  int64_t offset = 0;     // where this share starts along it
  bool empty() const { return M == 0 || N == 0 || K == 0; }
};

// Lays the pass's blocks out in HBM (each matrix's from its MatrixPlace; each block from a
// kBlockAlign boundary, moved whole; `plan` cut into buffers.k_chunks K chunks if it is not yet)
// and orders the transfers: per fold its
// stream slice (once while resident) and its tile (OS: once per column fold), and
// the write-back of its outputs after the last fold that adds to them (WS, IS: a
// column fold's; OS: each fold's own). Mechanical: every choice is in `buffers`
// and the roles table, so the models expand it when the pass runs and the plan
// stays small.
LayerDmaPlan lay_out_dma_program(const FoldPlan& plan, const DmaBuffers& buffers);

nlohmann::ordered_json to_json(const LayerDmaPlan& plan);

}  // namespace cstsim
