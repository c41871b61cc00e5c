; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.RWStructuredBuffer<int>" = type opaque

@Output = external constant %"class.RWStructuredBuffer<int>"

declare void @MyChildNode()

declare void @MyGraphRoot()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!7, !8, !17}
!wgc.spirv.entryPoints = !{!22, !23}
!wgc.experimental.tags = !{!24, !25}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{null, !4, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.RWStructuredBuffer<int>"* @Output, !"Output", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !6}
!6 = !{i32 1, i32 4}
!7 = !{null, !"", null, !3, null}
!8 = !{void ()* @MyChildNode, !"MyChildNode", null, null, !9}
!9 = !{i32 8, i32 15, i32 13, i32 1, i32 15, !10, i32 16, i32 -1, i32 18, !11, i32 20, !12, i32 4, !15, i32 5, !16}
!10 = !{!"MyChildNode", i32 0}
!11 = !{i32 1, i32 1, i32 1}
!12 = !{!13}
!13 = !{i32 1, i32 97, i32 2, !14}
!14 = !{i32 0, i32 4, i32 2, i32 4}
!15 = !{i32 8, i32 8, i32 1}
!16 = !{i32 0}
!17 = !{void ()* @MyGraphRoot, !"MyGraphRoot", null, null, !18}
!18 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !19, i32 16, i32 -1, i32 21, !20, i32 4, !11, i32 5, !16}
!19 = !{!"MyGraphRoot", i32 0}
!20 = !{!21}
!21 = !{i32 1, i32 6, i32 2, !14, i32 3, i32 1, i32 0, !10}
!22 = !{void ()* @MyChildNode, !"MyChildNode"}
!23 = !{void ()* @MyGraphRoot, !"MyGraphRoot"}
!24 = !{!"NodeMaxLoopIterations", i32 131072}
!25 = !{!"NodeMaxRecordsPerLoopIteration", i32 131073}
