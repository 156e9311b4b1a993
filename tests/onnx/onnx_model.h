#pragma once
// ONNX models written by hand with ONNX's own classes (no downloads): the importer's tests build
// theirs with it, and the ONNX fuzz target its seeds.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace cstsim::testing_util {

// A small ONNX model: opset 17.
class OnnxModel {
 public:
  OnnxModel() {
    m_.set_ir_version(8);
    m_.add_opset_import()->set_version(17);
    m_.mutable_graph()->set_name("test-model");
  }
  void input(const std::string& name, const std::vector<int64_t>& dims, int type = onnx::TensorProto::FLOAT16) {
    value(m_.mutable_graph()->add_input(), name, dims, type);
  }
  // An input whose first dimension is symbolic (dim_param), the rest given.
  void symbolic_input(const std::string& name, const std::string& param, const std::vector<int64_t>& rest) {
    onnx::ValueInfoProto* v = m_.mutable_graph()->add_input();
    v->set_name(name);
    onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT16);
    t->mutable_shape()->add_dim()->set_dim_param(param);
    for (int64_t d : rest) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  void output(const std::string& name, int type = onnx::TensorProto::FLOAT16) {
    onnx::ValueInfoProto* v = m_.mutable_graph()->add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  }
  // A weight (its values are not needed: cstsim reads shapes).
  void weight(const std::string& name, const std::vector<int64_t>& dims, int type = onnx::TensorProto::FLOAT16) {
    onnx::TensorProto* t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
  }
  void shape_constant(const std::string& name, const std::vector<int64_t>& values) {
    onnx::TensorProto* t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(int64_t(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  }
  // A scalar constant (fp16 1.0: its value does not matter to cstsim).
  void scalar(const std::string& name) {
    onnx::TensorProto* t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT16);
    t->add_int32_data(0x3c00);
  }
  // A float scalar whose value the importer reads (an epsilon, a GELU's constants, a clip bound).
  void float_scalar(const std::string& name, float value) {
    onnx::TensorProto* t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(value);
  }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& in, const std::string& out,
                        const std::string& name = "") {
    onnx::NodeProto* n = m_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? out + "_" + op : name);
    for (const std::string& i : in) n->add_input(i);
    n->add_output(out);
    return n;
  }
  static void ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& values) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values) a->add_ints(v);
  }
  static void integer(onnx::NodeProto* n, const std::string& name, int64_t value) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  std::filesystem::path save(const std::filesystem::path& path) const {
    std::ofstream out(path, std::ios::binary);
    m_.SerializeToOstream(&out);
    return path;
  }

 private:
  static void value(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims, int type) {
    v->set_name(name);
    onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  onnx::ModelProto m_;
};

}  // namespace cstsim::testing_util
