// A list of 32-bit ids held in about the bytes their spread needs, with constant-time access
// by position: the level 0 of the timeline's index (timeline_index.h), a row's slice ids by
// start time, which in the model's table mostly climb by a steady step (a row's slices lie
// between their children). Blocks of 256 ids: each a line (its first id and a step) and each
// id's distance from the line in 0, 1, 2 or 4 bytes, the fewest that hold the block's
// distances; a block whose ids lie on the line stores no byte per id.
//
// Built by appending (ids in any order); Finish() before reading.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aiprof::server {

class CompactIds {
 public:
  static constexpr uint32_t kBlock = 256;

  void push_back(uint32_t id);
  // Encodes what is still pending; the list is read-only after it.
  void Finish();
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint32_t operator[](size_t i) const;
  // The ids decoded (the list is then empty): for a list that must be reordered.
  std::vector<uint32_t> Release();
  size_t MemoryBytes() const;

 private:
  struct Block {
    uint32_t first = 0;
    int32_t step = 0;
    uint32_t offset = 0;  // of its distances in bytes_
    uint8_t width = 0;    // bytes per distance: 0, 1, 2 or 4 (4: the id itself)
  };
  void Seal();

  std::vector<Block> blocks_;
  std::vector<uint8_t> bytes_;
  std::vector<uint32_t> pending_;  // the last block's ids until it is full or finished
  size_t size_ = 0;
};

}  // namespace aiprof::server
