; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.StructuredBuffer<float>" = type opaque
%"class.RWStructuredBuffer<float>" = type opaque

@Input = external constant %"class.StructuredBuffer<float>"
@Output = external constant %"class.RWStructuredBuffer<float>"

declare void @MyEntryNode()

declare void @MyLeafNode()

declare void @MyRecursiveNode()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!9, !10, !21, !24}
!wgc.spirv.entryPoints = !{!29, !30, !31}
!wgc.experimental.tags = !{!32, !33}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{!4, !7, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.StructuredBuffer<float>"* @Input, !"Input", i32 0, i32 0, i32 1, i32 12, i32 0, !6}
!6 = !{i32 1, i32 4}
!7 = !{!8}
!8 = !{i32 0, %"class.RWStructuredBuffer<float>"* @Output, !"Output", i32 0, i32 1, i32 1, i32 12, i1 false, i1 false, i1 false, !6}
!9 = !{null, !"", null, !3, null}
!10 = !{void ()* @MyEntryNode, !"MyEntryNode", null, null, !11}
!11 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !12, i32 16, i32 -1, i32 20, !13, i32 21, !16, i32 4, !19, i32 5, !20}
!12 = !{!"MyEntryNode", i32 0}
!13 = !{!14}
!14 = !{i32 1, i32 33, i32 2, !15}
!15 = !{i32 0, i32 8, i32 2, i32 4}
!16 = !{!17}
!17 = !{i32 1, i32 6, i32 2, !15, i32 3, i32 1, i32 0, !18}
!18 = !{!"MyRecursiveNode", i32 0}
!19 = !{i32 1, i32 1, i32 1}
!20 = !{i32 0}
!21 = !{void ()* @MyLeafNode, !"MyLeafNode", null, null, !22}
!22 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !23, i32 16, i32 -1, i32 20, !13, i32 4, !19, i32 5, !20}
!23 = !{!"MyLeafNode", i32 0}
!24 = !{void ()* @MyRecursiveNode, !"MyRecursiveNode", null, null, !25}
!25 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !18, i32 16, i32 -1, i32 19, i32 16, i32 20, !13, i32 21, !26, i32 4, !19, i32 5, !20}
!26 = !{!27, !28}
!27 = !{i32 1, i32 6, i32 2, !15, i32 3, i32 2, i32 0, !18}
!28 = !{i32 1, i32 6, i32 2, !15, i32 3, i32 1, i32 0, !23}
!29 = !{void ()* @MyEntryNode, !"MyEntryNode"}
!30 = !{void ()* @MyLeafNode, !"MyLeafNode"}
!31 = !{void ()* @MyRecursiveNode, !"MyRecursiveNode"}
!32 = !{!"NodeMaxLoopIterations", i32 131072}
!33 = !{!"NodeMaxRecordsPerLoopIteration", i32 131073}
