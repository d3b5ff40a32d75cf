#version 450
// The floor of a dispatch: a workgroup that does nothing (vktime -groups 1).
layout(local_size_x = 64) in;
void main() {}
